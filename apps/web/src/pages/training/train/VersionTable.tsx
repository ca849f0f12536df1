import type { HTMLAttributes } from 'react';
import { Link } from 'react-router-dom';
import { Button, Empty, Table, Tag, Tooltip, type TableColumnsType } from 'antd';
import { Limits, type TrainingData, type TrainingStatus } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { currentLanguage } from '@/i18n';
import { DASH, duration, percent } from '../shared/format';
import { choosesRotation, HEADLINE, taskOf } from '../shared/tasks';
import { accuracyReason } from './accuracy';
import { notUsable, VerdictTag } from '../shared/Advice';

/** A version's status tag colour (also /modelManagement's). */
export const STATUS_COLORS: Partial<Record<TrainingStatus, string>> = {
  queued: 'default',
  preparing: 'processing',
  training: 'processing',
  succeeded: 'success',
  failed: 'error',
  cancelled: 'warning',
};

interface Props {
  /** The model type: names the accuracy before any training exists, and decides the rotated-box column. */
  type?: string;
  trainings: TrainingData[];
  selectedId: number | undefined;
  onSelect: (id: number) => void;
  onResume: (id: number) => void;
  resumingId: number | null;
  busy: boolean;
}

function Accuracy({ training }: { training: TrainingData }) {
  const { t } = useTranslation('training');
  const reason = accuracyReason(training);
  if (!reason) {
    return (
      <span data-testid={`train-accuracy-${training.id}`} data-value={training.accuracy ?? ''} data-metric={HEADLINE[taskOf(training.task)]}>
        {percent(training.accuracy)}
      </span>
    );
  }
  return (
    <Tooltip title={t(`versions.noAccuracy.${reason}`, { min: Limits.labeledForAccuracy, count: training.labeledImages })}>
      <span data-testid={`train-accuracy-${training.id}`} data-reason={reason} className="loupe-train-no-accuracy">
        {DASH}
      </span>
    </Tooltip>
  );
}

/** Date over time: two short lines instead of one long one, so the start and end columns stay narrow. */
export function When({ iso }: { iso: string | null }) {
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return <>{DASH}</>;
  const lang = currentLanguage();
  return (
    <span className="loupe-train-when">
      {date.toLocaleDateString(lang)}
      <br />
      {date.toLocaleTimeString(lang)}
    </span>
  );
}

/**
 * The SPEC §3 training records, newest first; a row click shows that training's curves. Fits the page from
 * about 1100 px of table width (1440 px windows with the sidebar open, issue 31): fixed column widths, dates on
 * two lines, headers that wrap, the label kinds from 1200 px windows up. Narrower, it scrolls sideways with
 * Resume pinned on the right.
 */
export function VersionTable({ type, trainings, selectedId, onSelect, onResume, resumingId, busy }: Props) {
  const { t } = useTranslation(['training', 'models', 'versions']);
  // The model's trainings share a type; the newest says which headline metric the accuracy is.
  const task = taskOf(trainings[0]?.task, type);
  const columns: TableColumnsType<TrainingData> = [
    { title: t('versions.serialNo'), dataIndex: 'serialNo', width: 56 },
    { title: t('versions.version'), dataIndex: 'version', width: 80, render: (v: string) => <span data-testid="train-row-version">{v}</span> },
    ...(type === undefined || choosesRotation(type)
      ? [
          {
            title: t('versions.rotated'),
            dataIndex: 'rotated',
            width: 96,
            render: (r: boolean) => t(r ? 'versions.rotatedYes' : 'versions.rotatedNo'),
          },
        ]
      : []),
    {
      title: t('versions.status'),
      dataIndex: 'status',
      width: 110,
      render: (s: TrainingStatus, row) => (
        <Tooltip title={row.error ?? undefined}>
          {/* Issue 31: not a green "Succeeded" alone when the server's verdict says it learned nothing usable. */}
          <Tag color={notUsable(row) ? 'default' : STATUS_COLORS[s]} data-testid={`train-row-status-${row.id}`}>
            {t(`models:trainingStatus.${s}`)}
          </Tag>
          <VerdictTag training={row} />
          {row.agentId != null && (
            <Link to={`/agent?id=${row.modelId}`} data-testid={`train-row-agent-${row.id}`}>
              <Tag color="purple">{t('versions.byAgent')}</Tag>
            </Link>
          )}
        </Tooltip>
      ),
    },
    { title: t('versions.accuracyOf', { metric: t(`headlineShort.${task}`) }), key: 'accuracy', width: 110, render: (_, row) => <Accuracy training={row} /> },
    { title: t('versions.images'), key: 'images', width: 110, render: (_, row) => `${row.labeledImages} / ${row.totalImages}` },
    { title: t('versions.labelKinds'), dataIndex: 'labelKinds', width: 80, responsive: ['xl'] },
    { title: t('versions.start'), dataIndex: 'startedAt', width: 110, render: (v: string) => <When iso={v} /> },
    { title: t('versions.end'), dataIndex: 'endedAt', width: 110, render: (v: string | null) => <When iso={v} /> },
    { title: t('versions.duration'), dataIndex: 'durationS', width: 100, render: (v: number | null) => duration(v) },
    {
      title: '',
      key: 'actions',
      width: 100,
      // Pinned: on a narrow screen the table scrolls and Resume must stay in reach.
      fixed: 'right',
      render: (_, row) =>
        row.status === 'failed' && row.resumable ? (
          <Button
            size="small"
            onClick={(e) => {
              e.stopPropagation();
              onResume(row.id);
            }}
            loading={resumingId === row.id}
            disabled={busy}
            data-testid={`train-resume-${row.id}`}
          >
            {t('versions.resume')}
          </Button>
        ) : null,
    },
  ];
  return (
    <Table<TrainingData>
      rowKey="id"
      size="small"
      data-testid="train-versions"
      columns={columns}
      dataSource={trainings}
      tableLayout="fixed"
      className="loupe-train-versions"
      // The columns' widths without the label kinds: narrower than this (windows below about 1200 px), it scrolls.
      scroll={{ x: 980 }}
      pagination={trainings.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
      locale={{ emptyText: <Empty description={t('versions.empty')} data-testid="train-versions-empty" /> }}
      // Where the versions are managed (default version, notes, deletion) and two trainings compared.
      footer={
        trainings.length > 0
          ? () => (
              <span style={{ display: 'inline-flex', flexWrap: 'wrap', gap: 16 }}>
                <Link to="/modelManagement" data-testid="train-manage-versions">
                  {t('versions:links.manage')}
                </Link>
                {trainings.length > 1 && (
                  <Link to="/train2" data-testid="train-compare-versions">
                    {t('versions:links.compare')}
                  </Link>
                )}
              </span>
            )
          : undefined
      }
      rowClassName={(row) => (row.id === selectedId ? 'loupe-train-row-selected' : '')}
      onRow={(row) =>
        ({
          'data-testid': `train-row-${row.id}`,
          'data-status': row.status,
          'data-version': row.version,
          onClick: () => onSelect(row.id),
          style: { cursor: 'pointer' },
        }) as HTMLAttributes<HTMLElement>
      }
    />
  );
}
