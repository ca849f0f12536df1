import type { ErrorKind, TrainingTask } from '@loupe/contracts';
import { outlineOf } from '../formats/types.js';
import { greedyMatch, iou, MATCH_IOU, truthPolygon } from './matching.js';
import { sameText } from './outcomes.js';
import type { TestImageDetail } from './record.js';

/** Under this IoU a detection is nowhere near a ground-truth shape. */
export const NEAR_IOU = 0.1;

type Tally = Record<ErrorKind, number>;

/**
 * One image's errors at `conf`, the predictions under it dropped and the rest matched again as the run matched
 * them. Each unmatched prediction is, in this order: wrongClass (IoU ≥ MATCH_IOU with an unmatched shape of another
 * class), poorLocalisation (NEAR_IOU ≤ IoU < MATCH_IOU with an unmatched shape of its own class) or falsePositive
 * (nothing of its class to take: near no shape, or a second detection of one already found). Each unmatched
 * shape no prediction explained that way is missed.
 */
function imageErrors(d: TestImageDetail, conf: number, task: TrainingTask, tally: Tally): void {
  const rotated = task === 'obb' || task === 'ocr';
  const kept = d.predictions.filter((p) => p.confidence >= conf).sort((a, b) => b.confidence - a.confidence);
  const truth = d.groundTruth;
  const truthPolys = truth.map((t) => truthPolygon(t.geometry, rotated));
  const overlaps = kept.map((p) => {
    const poly = outlineOf(p.geometry);
    return truthPolys.map((t) => iou(poly, t));
  });
  const m = greedyMatch(kept, truth, (i, k) => overlaps[i]![k]!, task === 'ocr' ? sameText : undefined);
  const explained = new Set<number>();
  // The unmatched shape of the wanted class (same or other) that overlaps the prediction most within [lo, hi).
  const nearest = (i: number, same: boolean, lo: number, hi: number) => {
    let best = -1;
    truth.forEach((t, k) => {
      const v = overlaps[i]![k]!;
      if (m.groundTruth[k]!.matched || (t.labelId === kept[i]!.labelId) !== same || v < lo || v >= hi) return;
      if (best < 0 || v > overlaps[i]![best]!) best = k;
    });
    return best;
  };
  m.predictions.forEach((p, i) => {
    if (p.matched) return;
    const wrong = nearest(i, false, MATCH_IOU, Infinity);
    const poor = wrong < 0 ? nearest(i, true, NEAR_IOU, MATCH_IOU) : -1;
    const kind: ErrorKind = wrong >= 0 ? 'wrongClass' : poor >= 0 ? 'poorLocalisation' : 'falsePositive';
    tally[kind]++;
    if (wrong >= 0) explained.add(wrong);
    if (poor >= 0) explained.add(poor);
  });
  m.groundTruth.forEach((t, k) => {
    if (!t.matched && !explained.has(k)) tally.missed++;
  });
}

/** Detection, rotated-box and OCR errors at `conf` over the run's images, by kind. */
export function detectionErrors(details: TestImageDetail[], conf: number, task: TrainingTask): Tally {
  const tally: Tally = { falsePositive: 0, missed: 0, wrongClass: 0, poorLocalisation: 0 };
  for (const d of details) imageErrors(d, conf, task, tally);
  return tally;
}

/**
 * A single-label classification's confusion at `conf` over `labels` (names), rows predicted, columns true: each
 * image with a true class whose top class reaches `conf`. Below it the image has no prediction and is left out.
 */
export function confusion(details: TestImageDetail[], conf: number, names: ReadonlyMap<number, string>, labels: string[]): { matrix: number[][]; wrong: number } {
  const index = new Map(labels.map((n, i) => [n, i]));
  const matrix = labels.map(() => labels.map(() => 0));
  let wrong = 0;
  for (const { classification: c } of details) {
    if (!c || c.multiLabel || c.truthLabelId === null || c.confidence < conf) continue;
    const row = index.get(names.get(c.labelId) ?? '');
    const col = index.get(names.get(c.truthLabelId) ?? '');
    if (row === undefined || col === undefined) continue;
    matrix[row]![col]!++;
    if (row !== col) wrong++;
  }
  return { matrix, wrong };
}
