import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Card, Empty, InputNumber, Popconfirm, Select, Space, Table, Typography } from 'antd';
import { MeasureFields, type MeasureField, type MeasureUnit } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useLabels } from '@/pages/gallery/galleryApi';
import { unitOf } from './units';
import { fromForm, previewVerdicts, toForm, type ToleranceFormValues } from './toleranceForm';
import { GoldenFailed, useCalibration, useGolden, useMeasurements, useModelImages, useToleranceMutations, useTolerances } from './measurementApi';

type Bounds = { min: number | null; max: number | null };

function BoundsInput({ value, onChange, id, integer }: { value: Bounds; onChange: (v: Bounds) => void; id: string; integer?: boolean }) {
  const { t } = useTranslation('measurement');
  const step = integer ? 1 : undefined;
  return (
    <Space.Compact>
      <InputNumber<number> size="small" style={{ width: 110 }} placeholder={t('tolerances.min')} step={step} value={value.min} onChange={(min) => onChange({ ...value, min })} data-testid={`${id}-min`} />
      <InputNumber<number> size="small" style={{ width: 110 }} placeholder={t('tolerances.max')} step={step} value={value.max} onChange={(max) => onChange({ ...value, max })} data-testid={`${id}-max`} />
    </Space.Compact>
  );
}

/**
 * Tolerances: per label a count and each field's min/max (in mm when calibrated), and the image's total count.
 * "From golden samples" measures the labels of chosen labeled images and fills the form with their ranges
 * widened by a margin; nothing is saved until Save.
 */
export function TolerancesPanel({ modelId, testId }: { modelId: string; testId?: number }) {
  const { t } = useTranslation('measurement');
  const showError = useShowError();
  const labels = useLabels(modelId);
  const saved = useTolerances(modelId);
  const calibration = useCalibration(modelId);
  const samples = useModelImages(modelId, true);
  const { save, remove } = useToleranceMutations(modelId);
  const golden = useGolden(modelId);
  // The shown run's first images, judged live by the tolerances being edited (the server's judge, in contracts).
  const run = useMeasurements(modelId, testId, { pageSize: 200 });
  const unit: MeasureUnit = calibration.data?.mmPerPx ? 'mm' : 'px';
  const labelIds = useMemo(() => (labels.data ?? []).map((l) => l.id), [labels.data]);
  const [form, setForm] = useState<ToleranceFormValues>(() => toForm(null, []));
  const [problems, setProblems] = useState<string[]>([]);
  const [chosen, setChosen] = useState<number[]>([]);
  const [margin, setMargin] = useState<number | null>(5);
  const [done, setDone] = useState(false);
  const [goldenError, setGoldenError] = useState<string | null>(null);

  useEffect(() => {
    if (saved.data && labels.data) setForm(toForm(saved.data.tolerances, labelIds));
  }, [saved.data, labels.data, labelIds]);

  const savedUnit = saved.data?.tolerances?.unit;
  const preview = useMemo(() => (run.data ? previewVerdicts(run.data.items, fromForm(form, unit)) : null), [run.data, form, unit]);
  const previewNg = preview ? [...preview.values()].filter((ok) => !ok).length : 0;
  const setRow = (i: number, patch: Partial<ToleranceFormValues['labels'][number]>) =>
    setForm((f) => ({ ...f, labels: f.labels.map((r, k) => (k === i ? { ...r, ...patch } : r)) }));

  const submit = async () => {
    setProblems([]);
    setDone(false);
    try {
      await save.mutateAsync(fromForm(form, unit));
      setDone(true);
    } catch (e) {
      const list = isApiError(e) ? ((e.data as { problems?: { message: string }[] } | null)?.problems ?? []).map((p) => p.message) : [];
      setProblems(list.length ? list : [isApiError(e) ? e.message : t('tolerances.failed')]);
    }
  };

  const propose = async () => {
    setGoldenError(null);
    try {
      const g = await golden.mutateAsync({ imageIds: chosen, marginPct: margin ?? 0 });
      setForm(toForm(g.proposal, labelIds));
      setDone(false);
    } catch (e) {
      // The measuring job failed (its reason from the server); a refused request shows as any other.
      if (e instanceof GoldenFailed) setGoldenError(e.message || t('golden.failed'));
      else showError(e);
    }
  };

  if (labels.data && labels.data.length === 0) return <Empty description={t('tolerances.noLabels')} />;
  const nameOf = new Map((labels.data ?? []).map((l) => [l.id, l.name]));
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="tolerances-panel" data-unit={unit}>
      <Typography.Text type="secondary">{t('tolerances.unitNote', { unit })}</Typography.Text>
      {savedUnit && savedUnit !== unit && <Alert type="warning" showIcon message={t('tolerances.unitChanged', { saved: savedUnit, unit })} data-testid="tolerances-unit-changed" />}
      <Card size="small" title={t('golden.title')} data-testid="golden">
        <Space direction="vertical" style={{ width: '100%' }}>
          <Typography.Text type="secondary">{t('golden.help')}</Typography.Text>
          <Select
            mode="multiple"
            style={{ width: '100%' }}
            placeholder={t('golden.pick')}
            loading={samples.isPending}
            value={chosen}
            onChange={setChosen}
            options={(samples.data?.items ?? []).map((i) => ({ value: i.id, label: i.name }))}
            maxTagCount="responsive"
            data-testid="golden-images"
          />
          <Space wrap>
            <Button size="small" disabled={!samples.data?.items.length} onClick={() => setChosen((samples.data?.items ?? []).map((i) => i.id))} data-testid="golden-all">
              {t('golden.all')}
            </Button>
            <InputNumber<number> size="small" min={0} max={100} addonBefore={t('golden.margin')} addonAfter="%" value={margin} onChange={setMargin} data-testid="golden-margin" />
            <Button size="small" type="primary" ghost disabled={chosen.length === 0} loading={golden.isPending} onClick={() => void propose()} data-testid="golden-propose">
              {t('golden.propose')}
            </Button>
          </Space>
          {golden.isPending && <Typography.Text type="secondary">{t('golden.measuring')}</Typography.Text>}
          {goldenError && <Alert type="error" showIcon message={goldenError} data-testid="golden-error" />}
          {golden.data && !goldenError && (
            <Typography.Text data-testid="golden-result" data-objects={golden.data.objects}>
              {t('golden.result', { images: golden.data.images, objects: golden.data.objects })}
            </Typography.Text>
          )}
        </Space>
      </Card>
      <Space>
        <Typography.Text strong>{t('tolerances.totalCount')}</Typography.Text>
        <BoundsInput integer value={form.count} onChange={(count) => setForm((f) => ({ ...f, count }))} id="tol-count" />
      </Space>
      {form.labels.map((row, i) => (
        <Card key={row.labelId} size="small" title={nameOf.get(row.labelId)} data-testid={`tol-label-${row.labelId}`}>
          <Space style={{ marginBottom: 8 }}>
            <Typography.Text>{t('tolerances.count')}</Typography.Text>
            <BoundsInput integer value={row.count} onChange={(count) => setRow(i, { count })} id={`tol-${row.labelId}-count`} />
          </Space>
          <Table<{ field: MeasureField }>
            size="small"
            pagination={false}
            rowKey="field"
            dataSource={MeasureFields.map((field) => ({ field }))}
            columns={[
              { title: t('tolerances.field'), render: (_, r) => `${t(`fields.${r.field}`)} (${unitOf(r.field, unit)})` },
              {
                title: t('tolerances.range'),
                render: (_, r) => (
                  <BoundsInput value={row.fields[r.field]} onChange={(v) => setRow(i, { fields: { ...row.fields, [r.field]: v } })} id={`tol-${row.labelId}-${r.field}`} />
                ),
              },
            ]}
          />
        </Card>
      ))}
      {problems.length > 0 && (
        <Alert
          type="error"
          showIcon
          message={t('tolerances.refused')}
          description={
            <ul style={{ margin: 0, paddingLeft: 16 }}>
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          }
          data-testid="tolerances-problems"
        />
      )}
      {preview && preview.size > 0 && (
        <Typography.Text type="secondary" data-testid="tolerances-preview" data-ok={preview.size - previewNg} data-ng={previewNg}>
          {t('tolerances.preview', { ok: preview.size - previewNg, ng: previewNg, images: preview.size })}
        </Typography.Text>
      )}
      {done && <Alert type="success" showIcon message={t('tolerances.saved')} data-testid="tolerances-saved" />}
      <Space>
        <Button type="primary" onClick={() => void submit()} loading={save.isPending} data-testid="tolerances-save">
          {t('tolerances.save')}
        </Button>
        <Popconfirm title={t('tolerances.clearConfirm')} onConfirm={() => remove.mutate()} okButtonProps={{ 'data-testid': 'tolerances-clear-confirm' } as Record<string, string>}>
          <Button danger disabled={!saved.data?.tolerances} data-testid="tolerances-clear">
            {t('tolerances.clear')}
          </Button>
        </Popconfirm>
      </Space>
    </Space>
  );
}
