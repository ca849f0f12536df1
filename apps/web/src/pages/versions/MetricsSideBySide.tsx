import { Card, Table, type TableColumnsType } from 'antd';
import type { TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { fixed, percent } from '@/pages/training/shared/format';
import { TASK_FIELDS, taskOf } from '@/pages/training/shared/tasks';

interface Row {
  key: string;
  /** percent: a share; fixed3: a plain number; lower: lower is better (edit distance, milliseconds). */
  format: 'percent' | 'fixed3' | 'ms';
  values: (number | null)[];
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The summary figures of the chosen versions, one row per figure that at least one of them reports. */
export function metricRows(versions: readonly TrainingData[]): Row[] {
  const keys: { key: string; format: Row['format'] }[] = [];
  const add = (key: string, format: Row['format']) => {
    if (!keys.some((k) => k.key === key)) keys.push({ key, format });
  };
  for (const v of versions) for (const f of TASK_FIELDS[taskOf(v.task)]) add(f.key, f.format);
  for (const key of ['precision', 'recall', 'f1']) add(key, 'percent');
  add('inference_ms', 'ms');
  return keys
    .map(({ key, format }) => ({ key, format, values: versions.map((v) => num(v.summary?.[key])) }))
    .filter((r) => r.values.some((x) => x !== null));
}

const LOWER_IS_BETTER = new Set(['inference_ms', 'ned']);

/** Metrics of the versions chosen in the table, side by side; the best of each row is bold. */
export function MetricsSideBySide({ versions }: { versions: readonly TrainingData[] }) {
  const { t } = useTranslation(['versions', 'training']);
  const rows = metricRows(versions);
  const show = (r: Row, v: number | null) => (r.format === 'percent' ? percent(v) : r.format === 'ms' ? fixed(v, 1, 'ms') : fixed(v, 3));
  const columns: TableColumnsType<Row> = [
    { title: t('compare.metric'), key: 'metric', width: 160, render: (_, r) => (r.key === 'inference_ms' ? t('compare.inferenceMs') : t(`training:metrics.${r.key}`, { defaultValue: r.key })) },
    ...versions.map((v, i) => ({
      title: v.version,
      key: String(v.id),
      render: (_: unknown, r: Row) => {
        const present = r.values.filter((x): x is number => x !== null);
        const best = LOWER_IS_BETTER.has(r.key) ? Math.min(...present) : Math.max(...present);
        const value = r.values[i] ?? null;
        // Bold only where the versions differ: equal figures have no best.
        const isBest = present.length > 1 && new Set(present).size > 1 && value === best;
        return (
          <span data-testid={`side-${r.key}-${v.id}`} data-value={value ?? ''} className={isBest ? 'loupe-side-best' : undefined}>
            {show(r, value)}
          </span>
        );
      },
    })),
  ];
  return (
    <Card size="small" title={t('compare.sideBySide')} data-testid="versions-side-by-side" data-versions={versions.map((v) => v.version).join(' ')}>
      <Table<Row> rowKey="key" size="small" pagination={false} columns={columns} dataSource={rows} locale={{ emptyText: t('compare.noMetrics') }} scroll={{ x: 'max-content' }} />
    </Card>
  );
}
