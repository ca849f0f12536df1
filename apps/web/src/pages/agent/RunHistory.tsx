import { Button, Card, Table, Tag, type TableColumnsType } from 'antd';
import type { AgentRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { dateTime, duration } from '@/pages/training/shared/format';
import { PHASE_COLORS } from './RunView';

interface Props {
  runs: readonly AgentRunData[];
  shownId: number | undefined;
  onOpen: (id: number) => void;
}

/** Every run of the model, newest first; one opens in the run view above. */
export function RunHistory({ runs, shownId, onOpen }: Props) {
  const { t } = useTranslation('agent');
  const columns: TableColumnsType<AgentRunData> = [
    { key: 'id', title: t('history.run'), render: (_, run) => `#${run.id}` },
    { key: 'created', title: t('history.created'), render: (_, run) => dateTime(run.createdAt) },
    { key: 'phase', title: t('run.phase'), render: (_, run) => <Tag color={PHASE_COLORS[run.phase] ?? 'processing'}>{t(`phase.${run.phase}`)}</Tag> },
    { key: 'budget', title: t('run.budget'), render: (_, run) => duration(run.budgetS) },
    {
      key: 'open',
      title: '',
      render: (_, run) => (
        <Button size="small" type="link" disabled={run.id === shownId} onClick={() => onOpen(run.id)} data-testid={`agent-history-open-${run.id}`}>
          {t('history.open')}
        </Button>
      ),
    },
  ];
  return (
    <Card size="small" title={t('history.title')} data-testid="agent-history">
      <Table<AgentRunData> size="small" rowKey="id" columns={columns} dataSource={[...runs]} pagination={runs.length > 10 ? { pageSize: 10 } : false} />
    </Card>
  );
}
