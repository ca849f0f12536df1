import { useMemo } from 'react';
import { Card, Col, Row, Table, Tag, type TableColumnsType } from 'antd';
import type { AgentTrial, TrialState } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '@/pages/training/charts/EChart';
import { DASH, duration, fixed } from '@/pages/training/shared/format';
import { trialChartOption } from './trialChart';

const STATE_COLORS: Record<TrialState, string> = { running: 'processing', complete: 'success', pruned: 'warning', failed: 'error' };

/** The searched values of one trial, `key=value` each, in the order the tuner sent them. */
export function paramsText(params: AgentTrial['params']): string {
  return Object.entries(params)
    .map(([key, value]) => `${key}=${typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(3)) : String(value)}`)
    .join(', ');
}

function TrialTable({ trials }: { trials: readonly AgentTrial[] }) {
  const { t } = useTranslation('agent');
  const columns: TableColumnsType<AgentTrial> = [
    { key: 'number', title: t('trials.number'), dataIndex: 'number', width: 64 },
    { key: 'params', title: t('trials.params'), render: (_, trial) => <code className="loupe-agent-params">{paramsText(trial.params)}</code> },
    {
      key: 'state',
      title: t('trials.state'),
      width: 110,
      render: (_, trial) => (
        <Tag color={STATE_COLORS[trial.state]} data-testid="agent-trial-state">
          {t(`trials.stateName.${trial.state}`)}
        </Tag>
      ),
    },
    { key: 'score', title: t('trials.score'), width: 90, render: (_, trial) => fixed(trial.score, 4) },
    { key: 'epochs', title: t('trials.epochs'), dataIndex: 'epochs', width: 80 },
    { key: 'duration', title: t('trials.duration'), width: 110, render: (_, trial) => (trial.durationS === null ? DASH : duration(trial.durationS)) },
  ];
  return (
    <Table<AgentTrial>
      size="small"
      rowKey="number"
      columns={columns}
      dataSource={[...trials]}
      pagination={trials.length > 20 ? { pageSize: 20 } : false}
      locale={{ emptyText: t('trials.none') }}
      onRow={(trial) => ({ 'data-testid': 'agent-trial-row', 'data-number': trial.number, 'data-state': trial.state }) as React.HTMLAttributes<HTMLElement>}
    />
  );
}

/** The tuner's trials: a table, and their scores with the best so far as a chart. */
export function Trials({ trials }: { trials: readonly AgentTrial[] }) {
  const { t } = useTranslation('agent');
  const option = useMemo(
    () =>
      trialChartOption(trials, {
        trial: t('trials.chart.trial'),
        score: t('trials.chart.score'),
        complete: t('trials.stateName.complete'),
        pruned: t('trials.stateName.pruned'),
        best: t('trials.chart.best'),
      }),
    [trials, t],
  );
  const scored = trials.filter((trial) => trial.score !== null).length;
  return (
    <Card size="small" title={t('trials.title')} data-testid="agent-trials" data-count={trials.length}>
      <Row gutter={16}>
        <Col xs={24} xl={14}>
          <TrialTable trials={trials} />
        </Col>
        <Col xs={24} xl={10}>
          <EChart option={option} points={scored} testId="agent-trial-chart" emptyText={t('trials.chart.none')} height={260} />
        </Col>
      </Row>
    </Card>
  );
}
