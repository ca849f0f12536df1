/**
 * Per-class figures of a run's engine summary, for the test analysis chart. The engine (metrics.py) sends
 * `per_class` {name: {AP50, AP50_95, instances}} in class order and `confusion_matrix` (nc+1)², rows the
 * predicted class, columns the true class, the last row and column background. From the matrix: TP on the
 * diagonal, FP the rest of the row (wrong class or background), FN the rest of the column.
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
  instances: number;
}

type Summary = Record<string, unknown> | null | undefined;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function matrixOf(value: unknown, size: number): number[][] | null {
  if (!Array.isArray(value) || value.length !== size) return null;
  const rows = value.map((row) => (Array.isArray(row) && row.length === size ? row.map((v) => num(v) ?? 0) : null));
  return rows.every((r) => r !== null) ? (rows as number[][]) : null;
}

export function classStats(summary: Summary): ClassStat[] {
  const perClass = summary?.per_class;
  if (!perClass || typeof perClass !== 'object' || Array.isArray(perClass)) return [];
  const entries = Object.entries(perClass as Record<string, Record<string, unknown> | undefined>);
  const matrix = matrixOf(summary?.confusion_matrix, entries.length + 1);
  return entries.map(([name, v], c) => {
    const tp = matrix ? matrix[c]![c]! : 0;
    const fp = matrix ? matrix[c]!.reduce((s, x) => s + x, 0) - tp : 0;
    const fn = matrix ? matrix.reduce((s, row) => s + row[c]!, 0) - tp : 0;
    return {
      name,
      tp,
      fp,
      fn,
      precision: matrix && tp + fp > 0 ? tp / (tp + fp) : null,
      recall: matrix && tp + fn > 0 ? tp / (tp + fn) : null,
      ap50: num(v?.AP50),
      instances: num(v?.instances) ?? 0,
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
    inferenceMs: num(s.inference_ms),
    fps: num(s.fps),
    detections: num(s.detections),
    suggestedConf: num(s.suggested_conf),
  };
}

export const hasGroundTruth = (m: RunMetrics) => m.precision !== null || m.mAP50 !== null;
