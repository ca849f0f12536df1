import type { Task } from '@/pages/training/shared/tasks';

/**
 * Per-class figures of a run's engine summary, for the test analysis chart. The engine (metrics.py) sends
 * `per_class` in class order and, for detection and classification, `confusion_matrix`, rows the predicted
 * class, columns the true class. Detection's is (nc+1)², the last row and column background; classification's
 * nc² (every image has a class). From the matrix: TP on the diagonal, FP the rest of the row (wrong class or
 * background), FN the rest of the column. Segmentation sends per-class IoU and Dice instead, and no matrix.
 */
export interface ClassStat {
  name: string;
  tp: number;
  fp: number;
  fn: number;
  /** null when the class had no predictions (precision) or no ground truth (recall). */
  precision: number | null;
  recall: number | null;
  ap50: number | null;
  /** Segmentation: the class's pixel IoU and Dice. */
  iou: number | null;
  dice: number | null;
  /** Objects (detection), images (classification) or pixels (segmentation) of the class in the ground truth. */
  instances: number;
}

type Summary = Record<string, unknown> | null | undefined;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function matrixOf(value: unknown, size: number): number[][] | null {
  if (!Array.isArray(value) || value.length !== size) return null;
  const rows = value.map((row) => (Array.isArray(row) && row.length === size ? row.map((v) => num(v) ?? 0) : null));
  return rows.every((r) => r !== null) ? (rows as number[][]) : null;
}

function perClassOf(summary: Summary): [string, Record<string, unknown> | undefined][] {
  const perClass = summary?.per_class;
  if (!perClass || typeof perClass !== 'object' || Array.isArray(perClass)) return [];
  return Object.entries(perClass as Record<string, Record<string, unknown> | undefined>);
}

/** The run's confusion matrix with its class names, when it fits the classes; detection's includes background. */
export function confusionOf(summary: Summary, task: Task = 'detect'): { matrix: number[][]; names: string[]; background: boolean } | null {
  if (task === 'segment') return null;
  const names = perClassOf(summary).map(([name]) => name);
  const background = task !== 'classify';
  const matrix = matrixOf(summary?.confusion_matrix, names.length + (background ? 1 : 0));
  return matrix && names.length > 0 ? { matrix, names, background } : null;
}

export function classStats(summary: Summary, task: Task = 'detect'): ClassStat[] {
  const entries = perClassOf(summary);
  const matrix = confusionOf(summary, task)?.matrix ?? null;
  return entries.map(([name, v], c) => {
    const tp = matrix ? matrix[c]![c]! : 0;
    const fp = matrix ? matrix[c]!.reduce((s, x) => s + x, 0) - tp : 0;
    const fn = matrix ? matrix.reduce((s, row) => s + row[c]!, 0) - tp : 0;
    // Classification and segmentation send each class's precision and recall; detection's come from the matrix.
    const own = task === 'classify' || task === 'segment';
    return {
      name,
      tp,
      fp,
      fn,
      precision: own ? num(v?.precision) : matrix && tp + fp > 0 ? tp / (tp + fp) : null,
      recall: own ? num(v?.recall) : matrix && tp + fn > 0 ? tp / (tp + fn) : null,
      ap50: num(v?.AP50),
      iou: num(v?.IoU),
      dice: num(v?.dice),
      instances: num(v?.[task === 'classify' ? 'images' : task === 'segment' ? 'pixels' : 'instances']) ?? 0,
    };
  });
}

/** The headline metrics; absent without ground truth (the engine then sends none of them). */
export interface RunMetrics {
  precision: number | null;
  recall: number | null;
  f1: number | null;
  mAP50: number | null;
  mAP50_95: number | null;
  /** Classification: single-label top-1 (top-5); multi-label exact-match accuracy and mAP over the classes. */
  top1: number | null;
  top5: number | null;
  exactMatch: number | null;
  mAP: number | null;
  /** Segmentation. */
  mIoU: number | null;
  dice: number | null;
  pixelAccuracy: number | null;
  instances: number | null;
  /** OCR. */
  charAcc: number | null;
  lineAcc: number | null;
  ned: number | null;
  inferenceMs: number | null;
  fps: number | null;
  detections: number | null;
  suggestedConf: number | null;
}

export function runMetrics(summary: Summary): RunMetrics {
  const s = summary ?? {};
  return {
    precision: num(s.precision),
    recall: num(s.recall),
    f1: num(s.f1),
    mAP50: num(s.mAP50),
    mAP50_95: num(s.mAP50_95),
    top1: num(s.top1),
    top5: num(s.top5),
    exactMatch: s.multi_label === true ? num(s.accuracy) : null,
    mAP: num(s.mAP),
    mIoU: num(s.mIoU),
    dice: num(s.dice),
    pixelAccuracy: num(s.pixel_accuracy),
    instances: num(s.instances),
    charAcc: num(s.char_acc),
    lineAcc: num(s.line_acc),
    ned: num(s.ned),
    inferenceMs: num(s.inference_ms),
    fps: num(s.fps),
    detections: num(s.detections),
    suggestedConf: bestF1Positive(s) ? num(s.suggested_conf) : null,
  };
}

/**
 * Whether any confidence reaches an F1 above 0 (issue 31: "best F1 at confidence 1.00, use it" was offered with
 * F1 = 0). The engine's best F1 when the summary has it; otherwise mAP50: it is 0 exactly when no prediction at any
 * score matches a labeled box at IoU 0.5, which is when F1 is 0 at every confidence.
 */
function bestF1Positive(s: Record<string, unknown>): boolean {
  const best = num(s.best_f1);
  if (best !== null) return best > 0;
  const map = num(s.mAP50);
  return map === null || map > 0;
}

export const hasGroundTruth = (m: RunMetrics) =>
  m.precision !== null || m.mAP50 !== null || m.top1 !== null || m.exactMatch !== null || m.mIoU !== null || m.charAcc !== null;
