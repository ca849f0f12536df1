import type { TrainingDetailData } from '@loupe/contracts';
import type { Task } from '../shared/tasks';

/**
 * The final evaluation of a training's best weights, for the /model charts. The engine computes per-class
 * figures, the PR curve and the confusion matrix (engine metrics.py) and writes them to the run's results.json
 * `metrics`, which the server sends as `detail.evaluation` once the training succeeded (else `summary` is read,
 * should it carry them); per-class figures fall back to the best epoch's validation, which the epoch history
 * keeps (same weights, so the same figures). What a class carries depends on the task (contracts
 * TrainingEvaluation): detection AP50/AP50-95, classification precision/recall, segmentation IoU/Dice.
 */
export interface ClassFigures {
  name: string;
  /** By the chart's series key: ap50, ap50_95 | precision, recall, f1 | iou, dice, precision, recall. */
  values: Record<string, number | null>;
  /** Objects (detection), images (classification) or pixels (segmentation) of the class in the validation set. */
  count: number;
}
/** Detection's per-class AP, kept under its own name for the AP chart. */
export interface ClassAp {
  name: string;
  ap50: number;
  ap50_95: number;
  instances: number;
}
export interface Evaluation {
  perClass: ClassFigures[];
  perClassSource: 'final' | 'bestEpoch' | null;
  prCurve: { recall: number[]; precision: number[] } | null;
  /** Rows predicted, columns true class; `names` are the class names (detection adds background after them). */
  confusion: { matrix: number[][]; names: string[]; background: boolean } | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNums = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Per task: the engine's per-class keys by series key, the one a class must have, and what it counts. */
const CLASS_KEYS: Record<'detect' | 'classify' | 'segment', { keys: Record<string, string>; required: string; count: string }> = {
  detect: { keys: { ap50: 'AP50', ap50_95: 'AP50_95' }, required: 'AP50', count: 'instances' },
  classify: { keys: { precision: 'precision', recall: 'recall', f1: 'f1' }, required: 'recall', count: 'images' },
  segment: { keys: { iou: 'IoU', dice: 'dice', precision: 'precision', recall: 'recall' }, required: 'IoU', count: 'pixels' },
};
const familyOf = (task: Task) => (task === 'classify' || task === 'segment' ? task : 'detect');

export function perClassOf(v: unknown, task: Task = 'detect'): ClassFigures[] {
  if (!isObj(v)) return [];
  const { keys, required, count } = CLASS_KEYS[familyOf(task)];
  return Object.entries(v).flatMap(([name, c]) =>
    isObj(c) && num(c[required]) !== null
      ? [{ name, values: Object.fromEntries(Object.entries(keys).map(([key, engineKey]) => [key, num(c[engineKey])])), count: num(c[count]) ?? 0 }]
      : [],
  );
}

/** Detection's AP per class (both APs present), for the AP chart. */
export const classAps = (perClass: readonly ClassFigures[]): ClassAp[] =>
  perClass.flatMap((c) => (c.values.ap50 != null && c.values.ap50_95 != null ? [{ name: c.name, ap50: c.values.ap50, ap50_95: c.values.ap50_95, instances: c.count }] : []));

function prCurveOf(v: unknown): Evaluation['prCurve'] {
  if (!isObj(v) || !isNums(v.recall) || !isNums(v.precision) || v.precision.length === 0) return null;
  return { recall: v.recall, precision: v.precision };
}

function matrixOf(v: unknown): number[][] | null {
  if (!Array.isArray(v) || v.length === 0 || !v.every(isNums)) return null;
  const n = v.length;
  return v.every((row) => row.length === n) ? v : null;
}

export function evaluationOf(detail: TrainingDetailData, task: Task = 'detect'): Evaluation {
  const sources = [detail.evaluation, detail.summary].filter(isObj);
  const pick = (key: string) => sources.map((s) => s[key]).find((v) => v !== undefined);

  let perClass = perClassOf(pick('per_class'), task);
  let perClassSource: Evaluation['perClassSource'] = perClass.length > 0 ? 'final' : null;
  if (perClass.length === 0) {
    const best = Number(detail.summary?.best_epoch);
    const epoch = detail.history.find((h) => h.epoch === best) ?? detail.history[detail.history.length - 1];
    perClass = perClassOf(epoch?.metrics.per_class, task);
    if (perClass.length > 0) perClassSource = 'bestEpoch';
  }

  // Detection's matrix has a background row and column after the classes; classification's has none;
  // segmentation sends none.
  const background = familyOf(task) === 'detect';
  const matrix = familyOf(task) === 'segment' ? null : matrixOf(pick('confusion_matrix'));
  const explicit = pick('names');
  const classNames = isObj(explicit) || !Array.isArray(explicit) ? perClass.map((c) => c.name) : explicit.map(String);
  const confusion = matrix && classNames.length === matrix.length - (background ? 1 : 0) ? { matrix, names: classNames, background } : null;

  return { perClass, perClassSource, prCurve: prCurveOf(pick('pr_curve')), confusion };
}
