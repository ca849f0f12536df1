import { useState } from 'react';
import { Alert, Button, Empty, Pagination, Result, Segmented, Space, Spin, Table, Tag, Typography } from 'antd';
import { MeasureFields, MeasurementVerdicts, type Failure, type MeasuredImage, type MeasurementVerdict } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { formatRange, formatValue } from './units';
import { useMeasurements } from './measurementApi';

const PAGE_SIZE = 12;

/** OK / NG / not judged, as a badge. */
function Verdict({ ok }: { ok: boolean | null }) {
  const { t } = useTranslation('measurement');
  if (ok === null) return <Tag data-testid="measure-verdict" data-verdict="none">{t('verdict.none')}</Tag>;
  return (
    <Tag color={ok ? 'success' : 'error'} data-testid="measure-verdict" data-verdict={ok ? 'ok' : 'ng'}>
      {ok ? 'OK' : 'NG'}
    </Tag>
  );
}

/** Why an image is NG, in words: "bolt #2: Major axis 10.4 mm (9.9 mm – 10.1 mm)", "Count 3 (≤ 2)". */
function failureText(f: Failure, labelName: (id: number | null) => string, t: (k: string, o?: Record<string, unknown>) => string, unit: 'px' | 'mm'): string {
  if (f.kind === 'count') return t('failure.count', { label: labelName(f.labelId), value: f.value, range: formatRange(null, f.range, unit) });
  return t('failure.field', { label: labelName(f.labelId), index: (f.index ?? 0) + 1, field: t(`fields.${f.field}`), value: formatValue(f.field!, f.value, unit), range: formatRange(f.field, f.range, unit) });
}

function ImageRow({ img, labelName, calibrated }: { img: MeasuredImage; labelName: (id: number | null) => string; calibrated: boolean }) {
  const { t } = useTranslation('measurement');
  const unit = img.objects.some((o) => o.mm) ? 'mm' : 'px';
  const failUnit = calibrated ? 'mm' : 'px';
  return (
    <div className="loupe-measure-image" data-testid={`measure-image-${img.imageId}`} data-name={img.name} data-count={img.count} data-verdict={img.ok === null ? 'none' : img.ok ? 'ok' : 'ng'} style={{ marginBottom: 16 }}>
      <Space align="start" style={{ marginBottom: 8 }}>
        <img src={img.thumbUrl} alt={img.name} style={{ width: 72, height: 54, objectFit: 'contain', background: '#111' }} />
        <Space direction="vertical" size={2}>
          <Space>
            <Typography.Text strong>{img.name}</Typography.Text>
            <Verdict ok={img.ok} />
            <Typography.Text type="secondary" data-testid="measure-count">
              {t('results.objects', { n: img.count })}
            </Typography.Text>
          </Space>
          {img.failures.map((f, k) => (
            <Typography.Text key={k} type="danger" data-testid="measure-failure">
              {failureText(f, labelName, t, failUnit)}
            </Typography.Text>
          ))}
        </Space>
      </Space>
      {img.objects.length > 0 && (
        <Table
          size="small"
          pagination={false}
          scroll={{ x: true }}
          rowKey={(_, i) => String(i)}
          dataSource={img.objects.map((o, i) => ({ ...o, n: i + 1 }))}
          data-testid="measure-objects"
          rowClassName={(o) => (o.failed.length ? 'loupe-measure-failed' : '')}
          columns={[
            { title: '#', dataIndex: 'n', width: 40 },
            { title: t('results.label'), render: (_, o) => labelName(o.labelId) },
            { title: t('results.confidence'), render: (_, o) => (o.confidence === null ? '–' : o.confidence.toFixed(2)) },
            ...MeasureFields.map((f) => ({
              title: t(`fields.${f}`),
              key: f,
              render: (_: unknown, o: (typeof img.objects)[number]) => (
                <span data-testid={`measure-${f}`} data-px={o.px[f]} data-mm={o.mm?.[f] ?? ''} style={o.failed.includes(f) ? { color: '#ff4d4f', fontWeight: 600 } : undefined}>
                  {unit === 'mm' && f !== 'angle' ? (
                    <>
                      {formatValue(f, o.mm![f], 'mm')}
                      <br />
                      <Typography.Text type="secondary">{formatValue(f, o.px[f], 'px')}</Typography.Text>
                    </>
                  ) : (
                    formatValue(f, o.px[f], 'px')
                  )}
                </span>
              ),
            })),
          ]}
        />
      )}
    </div>
  );
}

/** A MEASURE run's images: OK/NG badge, reasons, count and the per-object fields table; filter all / OK / NG. */
export function MeasurementResults({ modelId, testId, labelName }: { modelId: string; testId: number; labelName: (id: number | null) => string }) {
  const { t } = useTranslation('measurement');
  const [verdict, setVerdict] = useState<MeasurementVerdict>('all');
  const [page, setPage] = useState(1);
  const query = useMeasurements(modelId, testId, { verdict, page, pageSize: PAGE_SIZE });
  const data = query.data;

  let body: React.ReactNode;
  if (query.isPending) body = <Spin style={{ display: 'block', margin: 32 }} data-testid="measure-loading" />;
  else if (query.isError)
    body = <Result status="warning" title={t('results.loadFailed')} extra={<Button onClick={() => void query.refetch()}>{t('results.retry')}</Button>} data-testid="measure-error" />;
  else if (!data || data.total === 0) body = <Empty description={t(`results.empty.${verdict}`)} data-testid="measure-empty" />;
  else
    body = (
      <>
        {data.items.map((img) => (
          <ImageRow key={img.imageId} img={img} labelName={labelName} calibrated={data.unit === 'mm'} />
        ))}
        {data.total > PAGE_SIZE && <Pagination current={page} pageSize={PAGE_SIZE} total={data.total} onChange={setPage} showSizeChanger={false} />}
      </>
    );

  return (
    <div data-testid="measure-results" data-total={data?.total ?? 0} data-ok={data?.ok ?? 0} data-ng={data?.ng ?? 0} data-judged={data?.judged ? 'true' : 'false'}>
      <Space wrap style={{ marginBottom: 12 }}>
        <Segmented<MeasurementVerdict>
          value={verdict}
          onChange={(v) => {
            setVerdict(v);
            setPage(1);
          }}
          options={MeasurementVerdicts.map((v) => ({ value: v, label: <span data-testid={`measure-filter-${v}`}>{t(`results.filter.${v}`)}</span> }))}
        />
        {data?.judged && (
          <Typography.Text data-testid="measure-summary">
            {t('results.summary', { ok: data.ok, ng: data.ng, images: data.images })}
          </Typography.Text>
        )}
        {data?.mmPerPx && <Tag data-testid="measure-scale">{t('calibration.scale', { value: data.mmPerPx.toPrecision(6) })}</Tag>}
      </Space>
      {data && !data.judged && <Alert type="info" showIcon style={{ marginBottom: 12 }} message={t(data.unit === 'mm' ? 'results.needsCalibration' : 'results.noTolerances')} data-testid="measure-not-judged" />}
      {body}
    </div>
  );
}
