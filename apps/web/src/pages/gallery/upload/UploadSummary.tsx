import { Result, Table, Typography } from 'antd';
import type { AnnotationImportData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ImportReport } from './ImportReport';
import { importState, importTotals } from './importReport';

export interface SummaryRow {
  name: string;
  reason: string;
  /** Refused before sending (pre-check), by the server, or not delivered (network). */
  source: 'precheck' | 'server' | 'failed' | 'annotation';
}

interface Props {
  accepted: number;
  rows: SummaryRow[];
  annotations: AnnotationImportData | null;
  /** A labelled ZIP sent on its own: the summary is the import's, no image was uploaded before it. */
  zipOnly?: boolean;
}

type State = 'success' | 'warning' | 'error';
const WORST: State[] = ['error', 'warning', 'success'];

/** The closing summary: what the server took and, per file, what was refused and why. */
export function UploadSummary({ accepted, rows, annotations, zipOnly = false }: Props) {
  const { t } = useTranslation('gallery');
  const refused = rows.filter((r) => r.source !== 'failed').length;
  const failed = rows.length - refused;
  const totals = annotations ? importTotals(annotations) : null;
  const states: State[] = [];
  if (!zipOnly || !totals) states.push(rows.length === 0 ? 'success' : accepted + (annotations?.imagesMatched ?? 0) > 0 ? 'warning' : 'error');
  // Shapes left out of the import make the whole summary a warning (issue 33: no loss that looks like success).
  if (totals) states.push(importState(totals));
  const status = WORST.find((s) => states.includes(s)) ?? 'success';
  return (
    <div data-testid="upload-summary" data-status={status}>
      <Result
        status={status}
        title={
          zipOnly && totals
            ? t('upload.summary.importTitle', { annotations: totals.annotations, added: totals.imagesAdded })
            : t('upload.summary.title', { accepted })
        }
        subTitle={t('upload.summary.sub', { refused, failed })}
        style={{ padding: '16px 0' }}
      />
      {annotations && <ImportReport data={annotations} />}
      {rows.length > 0 && (
        <Table<SummaryRow & { key: string }>
          size="small"
          rowKey="key"
          dataSource={rows.map((r, i) => ({ ...r, key: `${r.source}-${i}` }))}
          pagination={{ pageSize: 8, hideOnSinglePage: true, showSizeChanger: false }}
          onRow={(r) => ({ 'data-testid': 'upload-summary-row', 'data-name': r.name }) as object}
          columns={[
            { title: t('upload.summary.file'), dataIndex: 'name', ellipsis: true },
            {
              title: t('upload.summary.where'),
              dataIndex: 'source',
              width: 140,
              render: (s: SummaryRow['source']) => t(`upload.summary.sources.${s}`),
            },
            {
              title: t('upload.summary.reason'),
              dataIndex: 'reason',
              render: (reason: string) => <Typography.Text type="danger">{reason}</Typography.Text>,
            },
          ]}
        />
      )}
    </div>
  );
}
