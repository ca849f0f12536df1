import { Descriptions, Typography } from 'antd';
import type { TrainingDetailData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { DASH, duration, fixed, percent } from '../shared/format';

type Summary = Record<string, unknown>;
const num = (s: Summary | null, key: string): number | null => {
  const v = s?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/** The SPEC §3 model info fields: [test id suffix, raw value, shown text]. */
export function modelInfoFields(d: TrainingDetailData, t: (key: string, options?: Record<string, unknown>) => string) {
  const s = d.summary;
  const gpu = num(s, 'gpu_memory_mb');
  return [
    ['dataset', d.labeledImages, t('model.datasetValue', { labeled: d.labeledImages, total: d.totalImages, labels: d.labelKinds })],
    ['totalEpochs', num(s, 'total_epochs'), fixed(num(s, 'total_epochs'), 0)],
    ['bestEpoch', num(s, 'best_epoch'), fixed(num(s, 'best_epoch'), 0)],
    ['totalTime', num(s, 'total_time_s'), duration(num(s, 'total_time_s'))],
    ['precision', num(s, 'precision'), percent(num(s, 'precision'))],
    ['recall', num(s, 'recall'), percent(num(s, 'recall'))],
    ['f1', num(s, 'f1'), percent(num(s, 'f1'))],
    ['mAP50', num(s, 'mAP50'), percent(num(s, 'mAP50'))],
    ['mAP50_95', num(s, 'mAP50_95'), percent(num(s, 'mAP50_95'))],
    ['bestValLoss', num(s, 'best_val_loss'), fixed(num(s, 'best_val_loss'), 4)],
    ['inferenceMs', num(s, 'inference_ms'), fixed(num(s, 'inference_ms'), 1, 'ms')],
    ['fps', num(s, 'fps'), fixed(num(s, 'fps'), 1)],
    // Null on CPU: the engine measures GPU memory only on CUDA.
    ['gpuMemory', gpu, gpu === null ? DASH : fixed(gpu, 0, 'MB')],
    ['modelSize', num(s, 'model_size_mb'), fixed(num(s, 'model_size_mb'), 1, 'MB')],
  ] as const;
}

export function ModelInfo({ detail }: { detail: TrainingDetailData }) {
  const { t } = useTranslation('training');
  const fields = modelInfoFields(detail, t);
  return (
    <Descriptions
      size="small"
      bordered
      column={{ xs: 1, sm: 2, lg: 3, xl: 4 }}
      data-testid="model-info"
      items={fields.map(([key, raw, text]) => ({
        key,
        label: t(`model.fields.${key}`),
        children: (
          <Typography.Text data-testid={`model-info-${key}`} data-value={raw ?? ''}>
            {text}
          </Typography.Text>
        ),
      }))}
    />
  );
}
