import { Alert, Button, Space, Table, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import type { AnnotationImportData, ImportFileReport } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { importState, importTotals, reportCsv, reportFileName, reportOf, saveText } from './importReport';

interface Props {
  data: AnnotationImportData;
}

const total = (counts: { count: number }[]) => counts.reduce((n, c) => n + c.count, 0);

/**
 * What an annotation ZIP gave (issue 33, no silent loss): one line of totals, a row per annotation file that
 * opens onto the reasons of every shape left out (warning colour) or stored in another kind, and the whole
 * report as a CSV download. An import that left shapes out shows as a warning, never as a plain success.
 */
export function ImportReport({ data }: Props) {
  const { t } = useTranslation('gallery');
  const model = useProject((s) => s.project?.name);
  const totals = importTotals(data);
  const state = importState(totals);
  const rows = reportOf(data);
  const classification = data.format === 'folders' || data.format === 'list';
  // Files with left-out shapes open at once, so "see why below" has the why in sight (a few of them).
  const opened = rows.filter((f) => f.skipped.length > 0).slice(0, 5).map((f) => f.file);
  // Each count of the summary is its own plural ("1 image", "2 images"; Russian one/few/many), worded for its place.
  const part = (name: string, count: number) => t(`upload.report.parts.${name}`, { count });

  const download = () => {
    const csv = reportCsv(data, {
      file: t('upload.report.file'),
      format: t('upload.report.format'),
      taken: t('upload.report.taken'),
      skipped: t('upload.report.skipped'),
      converted: t('upload.report.converted'),
      kind: t('upload.report.kind'),
      reason: t('upload.report.reason'),
      count: t('upload.report.count'),
      message: t('upload.report.message'),
      kinds: { skipped: t('upload.report.skipped'), converted: t('upload.report.converted'), refused: t('upload.report.refused') },
    });
    saveText(csv, reportFileName(model));
  };

  return (
    <Space orientation="vertical" style={{ width: '100%', marginBottom: 12 }} data-testid="import-report">
      <Alert
        type={state}
        showIcon
        data-testid="upload-summary-annotations"
        data-state={state}
        title={
          classification
            ? t('upload.report.summaryClasses', {
                format: t(`formats.${data.format}`),
                classified: part('classified', totals.annotations),
                files: part('files', totals.files),
                added: part('added', totals.imagesAdded),
                leftOut: part('leftOut', totals.skipped),
              })
            : t('upload.report.summary', {
                format: t(`formats.${data.format}`),
                annotations: part('annotations', totals.annotations),
                images: part('images', totals.images),
                files: part('files', totals.files),
                added: part('added', totals.imagesAdded),
                skipped: part('skipped', totals.skipped),
              })
        }
        description={
          <>
            {totals.skipped > 0 && (
              <div data-testid="import-report-skipped">{t(classification ? 'upload.report.skippedWarningClasses' : 'upload.report.skippedWarning', { count: totals.skipped })}</div>
            )}
            {data.labelsCreated.length > 0 && <div>{t('upload.summary.labelsCreated', { labels: data.labelsCreated.join(', ') })}</div>}
          </>
        }
      />
      {rows.length > 0 && (
        <Table<ImportFileReport>
          size="small"
          rowKey="file"
          dataSource={rows}
          pagination={{ pageSize: 8, hideOnSinglePage: true, showSizeChanger: false }}
          onRow={(f) => ({ 'data-testid': 'import-report-row', 'data-file': f.file }) as object}
          expandable={{
            defaultExpandedRowKeys: opened,
            rowExpandable: (f) => f.skipped.length + f.converted.length > 0,
            expandedRowRender: (f) => <Reasons file={f} />,
          }}
          columns={[
            { title: t('upload.report.file'), dataIndex: 'file', ellipsis: true },
            { title: t('upload.report.format'), dataIndex: 'format', width: 150, render: (f: ImportFileReport['format']) => t(`formats.${f}`) },
            { title: t('upload.report.taken'), dataIndex: 'taken', width: 90, align: 'right' },
            {
              title: t('upload.report.skipped'),
              key: 'skipped',
              width: 100,
              align: 'right',
              sorter: (a, b) => total(a.skipped) - total(b.skipped),
              render: (_, f) => {
                const n = total(f.skipped);
                return n > 0 ? <Typography.Text type="warning">{n}</Typography.Text> : n;
              },
            },
            { title: t('upload.report.converted'), key: 'converted', width: 100, align: 'right', render: (_, f) => total(f.converted) },
          ]}
        />
      )}
      <Button icon={<DownloadOutlined />} onClick={download} data-testid="upload-report-download">
        {t('upload.report.download')}
      </Button>
    </Space>
  );
}

/** The sentences of one file: every shape left out, by reason, then every shape stored in another kind. */
function Reasons({ file }: { file: ImportFileReport }) {
  return (
    <ul style={{ margin: 0, paddingInlineStart: 20 }} data-testid="import-report-reasons">
      {file.skipped.map((r) => (
        <li key={`s-${r.reason}-${r.message}`} data-reason={r.reason}>
          <Typography.Text type="warning">{r.message}</Typography.Text>
        </li>
      ))}
      {file.converted.map((r) => (
        <li key={`c-${r.reason}-${r.message}`} data-reason={r.reason}>
          <Typography.Text type="secondary">{r.message}</Typography.Text>
        </li>
      ))}
    </ul>
  );
}
