import { Table } from 'antd';
import type { TestAnalysisData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

type Row = TestAnalysisData['perClass'][number];
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** Precision, recall, F1 and support per class at the chosen confidence; IoU when the run is a segmentation. */
export function ClassTable({ rows }: { rows: TestAnalysisData['perClass'] }) {
  const { t } = useTranslation('statistics');
  const iou = rows.some((r) => typeof r.iou === 'number');
  return (
    <Table<Row>
      size="small"
      rowKey="name"
      dataSource={[...rows]}
      pagination={rows.length > 20 ? { pageSize: 20 } : false}
      data-testid="statistics-class-table"
      onRow={(r) => ({ 'data-testid': `class-row-${r.name}`, 'data-f1': r.f1 }) as React.HTMLAttributes<HTMLElement>}
      columns={[
        { key: 'name', title: t('test.table.class'), dataIndex: 'name' },
        { key: 'precision', title: t('test.table.precision'), render: (_, r) => pct(r.precision), sorter: (a, b) => a.precision - b.precision },
        { key: 'recall', title: t('test.table.recall'), render: (_, r) => pct(r.recall), sorter: (a, b) => a.recall - b.recall },
        { key: 'f1', title: t('test.table.f1'), render: (_, r) => pct(r.f1), sorter: (a, b) => a.f1 - b.f1 },
        { key: 'support', title: t('test.table.support'), dataIndex: 'support', sorter: (a, b) => a.support - b.support },
        ...(iou ? [{ key: 'iou', title: t('test.table.iou'), render: (_: unknown, r: Row) => (typeof r.iou === 'number' ? pct(r.iou) : '—') }] : []),
      ]}
    />
  );
}
