import { Descriptions, Typography } from 'antd';
import type { TrainingDetailData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { DASH, duration, fixed, percent } from '../shared/format';
import { OPTIONAL_FIELDS, TASK_FIELDS, taskOf } from '../shared/tasks';

type Summary = Record<string, unknown>;
const num = (s: Summary | null, key: string): number | null => {
  const v = s?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

type Field = readonly [id: string, raw: number | null, text: string];

/**
 * The SPEC §3 model info fields: [test id suffix, raw value, shown text]. After precision, recall and F1 come the
 * task's own figures (detection mAP50 and mAP50-95; classification top-1 and top-5; segmentation mIoU, Dice and
 * pixel accuracy; OCR character and line accuracy, normalised edit distance, then the text detector's mAP).
 */
export function modelInfoFields(d: TrainingDetailData, t: (key: string, options?: Record<string, unknown>) => string): Field[] {
  const s = d.summary;
  const gpu = num(s, 'gpu_memory_mb');
  const own = TASK_FIELDS[taskOf(d.task)]
    .filter((f) => !OPTIONAL_FIELDS.includes(f.id) || num(s, f.key) !== null)
    .map((f): Field => [f.id, num(s, f.key), f.format === 'percent' ? percent(num(s, f.key)) : fixed(num(s, f.key), 3)]);
  return [
    ['dataset', d.labeledImages, t('model.datasetValue', { labeled: d.labeledImages, total: d.totalImages, labels: d.labelKinds })],
    ['totalEpochs', num(s, 'total_epochs'), fixed(num(s, 'total_epochs'), 0)],
    ['bestEpoch', num(s, 'best_epoch'), fixed(num(s, 'best_epoch'), 0)],
    ['totalTime', num(s, 'total_time_s'), duration(num(s, 'total_time_s'))],
    ['precision', num(s, 'precision'), percent(num(s, 'precision'))],
    ['recall', num(s, 'recall'), percent(num(s, 'recall'))],
    ['f1', num(s, 'f1'), percent(num(s, 'f1'))],
    ...own,
    ['bestValLoss', num(s, 'best_val_loss'), fixed(num(s, 'best_val_loss'), 4)],
    ['inferenceMs', num(s, 'inference_ms'), fixed(num(s, 'inference_ms'), 1, 'ms')],
    ['fps', num(s, 'fps'), fixed(num(s, 'fps'), 1)],
    // Null on CPU: the engine measures GPU memory only on CUDA.
    ['gpuMemory', gpu, gpu === null ? DASH : fixed(gpu, 0, 'MB')],
    ['modelSize', num(s, 'model_size_mb'), fixed(num(s, 'model_size_mb'), 1, 'MB')],
  ];
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
