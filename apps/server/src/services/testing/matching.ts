import type { Geometry } from '@loupe/contracts';
import { boundsOf, outlineOf, toExportable } from '../formats/types.js';

type Point = [number, number];

/** IoU at or above which a detection found a ground-truth object (SPEC test analysis; COCO's AP50). */
export const MATCH_IOU = 0.5;

export interface Prediction {
  labelId: number;
  geometry: Geometry;
  confidence: number;
}
export interface Truth {
  labelId: number;
  geometry: Geometry;
}

export interface ImageMatch {
  predictions: (Prediction & { matched: boolean })[];
  groundTruth: (Truth & { matched: boolean })[];
  tp: number;
  fp: number;
  fn: number;
}

const signedArea = (p: Point[]) => p.reduce((s, [x, y], i) => s + x * p[(i + 1) % p.length]![1] - p[(i + 1) % p.length]![0] * y, 0) / 2;
const area = (p: Point[]) => Math.abs(signedArea(p));

/** Sutherland–Hodgman: `subject` (any simple polygon) clipped by the convex, counter-clockwise `clip`. */
function clipBy(subject: Point[], clip: Point[]): Point[] {
  let out = subject;
  for (let i = 0; i < clip.length && out.length > 0; i++) {
    const [ax, ay] = clip[i]!;
    const [bx, by] = clip[(i + 1) % clip.length]!;
    const inside = ([x, y]: Point) => (bx - ax) * (y - ay) - (by - ay) * (x - ax) >= 0;
    const cross = ([px, py]: Point, [qx, qy]: Point): Point => {
      const a1 = by - ay;
      const b1 = ax - bx;
      const a2 = qy - py;
      const b2 = px - qx;
      const det = a1 * b2 - a2 * b1;
      const c1 = a1 * ax + b1 * ay;
      const c2 = a2 * px + b2 * py;
      return [(c1 * b2 - c2 * b1) / det, (a1 * c2 - a2 * c1) / det];
    };
    const input = out;
    out = [];
    input.forEach((cur, k) => {
      const prev = input[(k + input.length - 1) % input.length]!;
      if (inside(cur)) {
        if (!inside(prev)) out.push(cross(prev, cur));
        out.push(cur);
      } else if (inside(prev)) out.push(cross(prev, cur));
    });
  }
  return out;
}


/**
 * The ground truth as the engine learned it: an axis-aligned model saw every shape as its bounding box;
 * a rotated one saw rotated boxes and polygons as they are.
 */
export function truthPolygon(g: Geometry, rotated: boolean): Point[] {
  if (rotated) return outlineOf(g);
  const b = boundsOf(toExportable(g));
  return outlineOf({ kind: 'box', ...b });
}

/** IoU of a convex detection (box or rotated box) with a ground-truth polygon. */
export function iou(detection: Point[], truth: Point[]): number {
  const clip = signedArea(detection) < 0 ? [...detection].reverse() : detection;
  const inter = area(clipBy(truth, clip));
  const union = area(detection) + area(truth) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * Greedy matching, most confident prediction first: each takes the unmatched ground-truth shape of its label that
 * overlaps it the most (`overlap(prediction, truth)` by index), if at least MATCH_IOU and `accept` agrees (OCR: the
 * text read must be the text labeled); that is a true positive, every other prediction a false positive and every
 * shape left a false negative.
 */
export function greedyMatch(
  predictions: Prediction[],
  truth: Truth[],
  overlap: (i: number, k: number) => number,
  accept: (p: Prediction, t: Truth) => boolean = () => true,
): ImageMatch {
  const taken = truth.map(() => false);
  const matched = predictions.map(() => false);
  const order = predictions.map((_, i) => i).sort((a, b) => predictions[b]!.confidence - predictions[a]!.confidence);
  for (const i of order) {
    const p = predictions[i]!;
    let best = -1;
    let bestIou = MATCH_IOU;
    truth.forEach((t, k) => {
      if (taken[k] || t.labelId !== p.labelId || !accept(p, t)) return;
      const v = overlap(i, k);
      if (v >= bestIou) [best, bestIou] = [k, v];
    });
    if (best >= 0) [taken[best], matched[i]] = [true, true];
  }
  const tp = matched.filter(Boolean).length;
  return {
    predictions: predictions.map((p, i) => ({ ...p, matched: matched[i]! })),
    groundTruth: truth.map((t, k) => ({ ...t, matched: taken[k]! })),
    tp,
    fp: predictions.length - tp,
    fn: truth.length - tp,
  };
}

/**
 * Boxes and rotated boxes by polygon IoU (rotated: the shapes as drawn; upright: the truth's bounding box, as the
 * detector learned it). `accept` as in greedyMatch.
 */
export function matchImage(predictions: Prediction[], truth: Truth[], rotated: boolean, accept?: (p: Prediction, t: Truth) => boolean): ImageMatch {
  const predictionPolys = predictions.map((p) => outlineOf(p.geometry));
  const truthPolys = truth.map((t) => truthPolygon(t.geometry, rotated));
  return greedyMatch(predictions, truth, (i, k) => iou(predictionPolys[i]!, truthPolys[k]!), accept);
}
