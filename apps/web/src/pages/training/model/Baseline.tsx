import { Alert } from 'antd';
import type { TrainingDetailData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { percent } from '../shared/format';

export interface BaselineComparison {
  /** The zero-shot reader and its version, e.g. "tesseract 5.3.0". */
  reader: string;
  /** Character accuracy of the zero-shot reader and of the trained model on the same validation crops (0 to 1). */
  baseline: number;
  model: number;
  /** The model against the baseline; equal within half a tenth of a point (the shown precision). */
  verdict: 'better' | 'worse' | 'equal';
  /** model - baseline in percentage points, rounded to a tenth, never negative (the verdict says which way). */
  diff: string;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The OCR summary's zero-shot baseline (engine ocr/baseline.py: Tesseract on the validation crops, scored like the
 * recognizer): `baseline_char_acc` and `baseline_reader` next to the model's `char_acc`. Null for other tasks, for a
 * training without a baseline (no tesseract on the server) or without a character accuracy.
 */
export function baselineOf(summary: Record<string, unknown> | null | undefined): BaselineComparison | null {
  const baseline = summary?.baseline_char_acc;
  const model = summary?.char_acc;
  const reader = summary?.baseline_reader;
  if (!isNum(baseline) || !isNum(model) || typeof reader !== 'string' || !reader) return null;
  const points = (model - baseline) * 100;
  const verdict = Math.abs(points) < 0.05 ? 'equal' : points > 0 ? 'better' : 'worse';
  return { reader, baseline, model, verdict, diff: Math.abs(points).toFixed(1) };
}

const TYPE = { better: 'success', worse: 'warning', equal: 'info' } as const;
const WORDS = { better: 'model.baselineBetter', worse: 'model.baselineWorse', equal: 'model.baselineEqual' } as const;

/** /model for OCR: the trained recognizer's character accuracy against the zero-shot reader's on the same images. */
export function BaselineAlert({ detail }: { detail: TrainingDetailData }) {
  const { t } = useTranslation('training');
  const b = detail.task === 'ocr' ? baselineOf(detail.summary) : null;
  if (!b) return null;
  return (
    <Alert
      showIcon
      type={TYPE[b.verdict]}
      data-testid="model-baseline"
      data-verdict={b.verdict}
      data-baseline={b.baseline}
      data-model={b.model}
      title={t('model.baseline', { reader: b.reader, baseline: percent(b.baseline), model: percent(b.model) })}
      description={t(WORDS[b.verdict], { diff: b.diff })}
    />
  );
}
