import type { TrainingDetailData } from '@loupe/contracts';

/**
 * The final evaluation of a training's best weights, for the /model charts. The engine computes per-class AP,
 * the PR curve and the confusion matrix (engine metrics.py) and writes them to the run's results.json
 * `metrics`, which the server sends as `detail.evaluation` once the training succeeded (else `summary` is read,
 * should it carry them); per-class AP falls back to the best epoch's validation, which
 * the epoch history keeps (same weights, so the same AP).
 */
export interface ClassAp {
  name: string;
  ap50: number;
  ap50_95: number;
  instances: number;
}
export interface Evaluation {
  perClass: ClassAp[];
  perClassSource: 'final' | 'bestEpoch' | null;
  prCurve: { recall: number[]; precision: number[] } | null;
  /** Rows predicted, columns true class; `labels` are the class names then background. */
  confusion: { matrix: number[][]; names: string[] } | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNums = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));

function perClassOf(v: unknown): ClassAp[] {
  if (!isObj(v)) return [];
  return Object.entries(v).flatMap(([name, c]) =>
    isObj(c) && typeof c.AP50 === 'number' && typeof c.AP50_95 === 'number'
      ? [{ name, ap50: c.AP50, ap50_95: c.AP50_95, instances: typeof c.instances === 'number' ? c.instances : 0 }]
      : [],
  );
}

function prCurveOf(v: unknown): Evaluation['prCurve'] {
  if (!isObj(v) || !isNums(v.recall) || !isNums(v.precision) || v.precision.length === 0) return null;
  return { recall: v.recall, precision: v.precision };
}

function matrixOf(v: unknown): number[][] | null {
  if (!Array.isArray(v) || v.length === 0 || !v.every(isNums)) return null;
  const n = v.length;
  return v.every((row) => row.length === n) ? v : null;
}

export function evaluationOf(detail: TrainingDetailData): Evaluation {
  const sources = [detail.evaluation, detail.summary].filter(isObj);
  const pick = (key: string) => sources.map((s) => s[key]).find((v) => v !== undefined);

  let perClass = perClassOf(pick('per_class'));
  let perClassSource: Evaluation['perClassSource'] = perClass.length > 0 ? 'final' : null;
  if (perClass.length === 0) {
    const best = Number(detail.summary?.best_epoch);
    const epoch = detail.history.find((h) => h.epoch === best) ?? detail.history[detail.history.length - 1];
    perClass = perClassOf(epoch?.metrics.per_class);
    if (perClass.length > 0) perClassSource = 'bestEpoch';
  }

  const matrix = matrixOf(pick('confusion_matrix'));
  const explicit = pick('names');
  const classNames = isObj(explicit) || !Array.isArray(explicit) ? perClass.map((c) => c.name) : explicit.map(String);
  const confusion = matrix && classNames.length === matrix.length - 1 ? { matrix, names: classNames } : null;

  return { perClass, perClassSource, prCurve: prCurveOf(pick('pr_curve')), confusion };
}
