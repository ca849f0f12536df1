import { Alert, Result, Table, Typography } from 'antd';
import type { AnnotationImportData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

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
}

/** The closing summary: what the server took and, per file, what was refused and why. */
export function UploadSummary({ accepted, rows, annotations }: Props) {
  const { t } = useTranslation('gallery');
  const refused = rows.filter((r) => r.source !== 'failed').length;
  const failed = rows.length - refused;
  return (
    <div data-testid="upload-summary">
      <Result
        status={rows.length === 0 ? 'success' : accepted + (annotations?.imagesMatched ?? 0) > 0 ? 'warning' : 'error'}
        title={t('upload.summary.title', { accepted })}
        subTitle={t('upload.summary.sub', { refused, failed })}
        style={{ padding: '16px 0' }}
      />
      {annotations && (
        <Alert
          type="success"
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="upload-summary-annotations"
          title={t('upload.summary.annotations', {
            format: t(`formats.${annotations.format}`),
            images: annotations.imagesMatched,
            annotations: annotations.annotations,
          })}
          description={
            annotations.labelsCreated.length > 0
              ? t('upload.summary.labelsCreated', { labels: annotations.labelsCreated.join(', ') })
              : undefined
          }
        />
      )}
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
