import type { ClassResult } from '@loupe/contracts';
import type { TestImageDetail } from './record.js';

/**
 * A run's scored decisions per class, the one input of every confidence sweep: each prediction (a detection, or
 * an image's class) with its confidence and whether it was right, and how many ground-truth items the class has.
 * Detections are matched greedily by falling confidence (matching.ts), so the predictions kept at any threshold
 * above the run's own match exactly as they did in the run: the stored `matched` flags hold for every threshold.
 */
export interface ClassScores {
  name: string;
  /** Predictions by falling confidence. */
  hits: { conf: number; tp: boolean }[];
  support: number;
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
export const f1Of = (c: Counts) => ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn);
export const precisionOf = (c: Counts) => ratio(c.tp, c.tp + c.fp);
export const recallOf = (c: Counts) => ratio(c.tp, c.tp + c.fn);

/** One class's counts when predictions under `conf` are dropped. */
export function countsAt(s: ClassScores, conf: number): Counts {
  let tp = 0;
  let fp = 0;
  for (const h of s.hits) {
    if (h.conf < conf) break;
    if (h.tp) tp++;
    else fp++;
  }
  return { tp, fp, fn: s.support - tp };
}

/** Micro counts over all classes at `conf`. */
export function totalAt(classes: ClassScores[], conf: number): Counts {
  return classes.map((c) => countsAt(c, conf)).reduce((a, b) => ({ tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn }), { tp: 0, fp: 0, fn: 0 });
}

/**
 * The confidence (one of the predictions' own, at least `floor`) whose threshold gives the best F1 over
 * `classes` together, and that F1; the highest such confidence on a tie. Without a prediction: `floor`, F1 0.
 */
export function bestF1(classes: ClassScores[], floor: number): { conf: number; f1: number } {
  const all = classes.flatMap((c) => c.hits).filter((h) => h.conf >= floor).sort((a, b) => b.conf - a.conf);
  const support = classes.reduce((n, c) => n + c.support, 0);
  let best = { conf: floor, f1: 0 };
  let tp = 0;
  for (let i = 0; i < all.length; i++) {
    if (all[i]!.tp) tp++;
    // A threshold keeps every prediction of its confidence: score only after the last of a tie.
    if (i + 1 < all.length && all[i + 1]!.conf === all[i]!.conf) continue;
    const f1 = f1Of({ tp, fp: i + 1 - tp, fn: support - tp });
    if (f1 > best.f1) best = { conf: all[i]!.conf, f1 };
  }
  return best;
}

/**
 * The highest confidence at which the class still reaches `target` recall: the confidence of its k-th true
 * positive, k = ⌈target·support⌉. Null when it never does (too few true positives), or has no ground truth.
 */
export function recallConf(s: ClassScores, target: number): number | null {
  if (s.support === 0) return null;
  const k = Math.ceil(target * s.support - 1e-9);
  const tps = s.hits.filter((h) => h.tp);
  return k <= tps.length ? tps[Math.max(k, 1) - 1]!.conf : null;
}

/** Recall (x) against precision (y) after each prediction as the threshold falls, thinned to at most `max` points (the last kept). */
export function prCurve(s: ClassScores, max = 200): [number, number][] {
  const points: [number, number][] = [];
  let tp = 0;
  s.hits.forEach((h, i) => {
    if (h.tp) tp++;
    points.push([ratio(tp, s.support), tp / (i + 1)]);
  });
  if (points.length <= max) return points;
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)]!);
}

function bucket(byLabel: Map<number, ClassScores>, labelId: number, names: ReadonlyMap<number, string>): ClassScores | undefined {
  const name = names.get(labelId);
  if (name === undefined) return undefined;
  let s = byLabel.get(labelId);
  if (!s) byLabel.set(labelId, (s = { name, hits: [], support: 0 }));
  return s;
}

/**
 * An image's classification as scored decisions. Single-label: its top class with its confidence, right when it
 * is the true class (an image without one is not counted). Multi-label: every class with its probability, right
 * when the class is one of the image's.
 */
function classHits(c: ClassResult, add: (labelId: number, conf: number | null, tp: boolean) => void): void {
  if (c.multiLabel) {
    if (!c.truthLabelIds) return;
    const truth = new Set(c.truthLabelIds);
    for (const [labelId, conf] of Object.entries(c.scores)) add(Number(labelId), conf, truth.has(Number(labelId)));
    for (const labelId of truth) add(labelId, null, true);
    return;
  }
  if (c.truthLabelId === null) return;
  add(c.labelId, c.confidence, c.labelId === c.truthLabelId);
  add(c.truthLabelId, null, true);
}

/**
 * Every class's scored decisions from the run's stored images (record.ts TestImageDetail), by label name
 * (`names`: the model's labels; predictions of a label since deleted are left out), predictions under `floor` (the
 * run's conf: a classifier's are all kept) left out. Classes sorted by name.
 */
export function classScores(details: TestImageDetail[], names: ReadonlyMap<number, string>, floor = 0): ClassScores[] {
  const byLabel = new Map<number, ClassScores>();
  // conf null: a ground-truth item (support); else a prediction.
  const add = (labelId: number, conf: number | null, tp: boolean) => {
    const s = bucket(byLabel, labelId, names);
    if (!s) return;
    if (conf === null) s.support++;
    else if (conf >= floor) s.hits.push({ conf, tp });
  };
  for (const d of details) {
    if (d.classification) classHits(d.classification, add);
    for (const p of d.predictions) add(p.labelId, p.confidence, p.matched);
    for (const t of d.groundTruth) add(t.labelId, null, true);
  }
  const out = [...byLabel.values()].sort((a, b) => a.name.localeCompare(b.name));
  for (const s of out) s.hits.sort((a, b) => b.conf - a.conf);
  return out;
}
