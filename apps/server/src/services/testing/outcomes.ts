import type { ClassResult, Geometry, TrainingTask } from '@loupe/contracts';
import type { Image } from '../../db/images.js';
import { round } from '../formats/types.js';
import { fitToImage } from '../labeling/geometry.js';
import { measureOf } from '../measurement/fields.js';
import type { CocoCategory } from '../training/snapshot.js';
import { greedyMatch, matchImage, type ImageMatch, type Prediction, type Truth } from './matching.js';
import { maskIou, rasterize } from './masks.js';

/**
 * One line of the engine's predictions.json (engine/README.md, per task). detect/obb: a box (bbox x, y, w, h;
 * rbox cx, cy, w, h, angle°). segment: an instance with COCO polygons. classify: an image with its top class
 * and every class's probability by name. ocr: a rotated box with the text read in it.
 */
export interface EngineResult {
  image_id: number;
  category_id: number;
  score: number;
  bbox?: number[];
  rbox?: number[];
  segmentation?: number[][];
  scores?: Record<string, number>;
  /** OCR: the line read, and the recognizer's confidence in it. */
  text?: string;
  text_score?: number;
  /** classify, multi-label: the classes whose probability reaches the test's conf (no category_id/score then). */
  category_ids?: number[];
}

/** What a test job gave the engine: the images, their ground truth and the categories the weights know. */
export interface PreparedTest {
  images: Image[];
  annotations: { id: number; image_id: number; label_id: number; geometry: string }[];
  categories: CocoCategory[];
  task: TrainingTask;
  /** Multi-label classification: each labeled image's true classes (label ids; [] a confirmed negative). */
  classSets?: ReadonlyMap<number, readonly number[]>;
}

/** One image's result: shapes matched against the ground truth, or its class, and the counts. */
export interface ImageOutcome extends ImageMatch {
  classification: ClassResult | null;
}

function group<T>(items: Iterable<[number, T]>): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const [key, value] of items) {
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

/**
 * A detection in the shape annotations have (labeling Geometry), so the studio draws and converts it as one.
 * The engine does not clip boxes to the image: they are clamped like annotations, and one with no area
 * inside the image is no detection (null). Rotated boxes stay as found (clamping would move the object).
 */
function boxOf(r: EngineResult, rotated: boolean, size: { width: number; height: number }): Geometry | null {
  if (rotated && r.rbox) {
    const [cx, cy, w, h, angle] = r.rbox as [number, number, number, number, number];
    return { kind: 'rbox', cx, cy, w, h, angle };
  }
  if (!r.bbox) return null;
  const [x, y, w, h] = r.bbox as [number, number, number, number];
  const b = fitToImage({ kind: 'box', x1: x, y1: y, x2: round(x + w, 2), y2: round(y + h, 2) }, size);
  return b?.kind === 'box' && b.x2 > b.x1 && b.y2 > b.y1 ? b : null;
}

/**
 * A segmentation instance as its outline: the largest of its polygons (one connected region has one outer
 * outline; holes are not drawn). A region too thin for a polygon (under 3 outline points) is shown as its box.
 */
function outlineOf(r: EngineResult, size: { width: number; height: number }): Geometry | null {
  const polys = (r.segmentation ?? []).filter((p) => p.length >= 6);
  if (polys.length === 0) return boxOf(r, false, size);
  const best = polys.reduce((a, b) => (b.length > a.length ? b : a));
  const points: [number, number][] = [];
  for (let k = 0; k + 1 < best.length; k += 2) points.push([best[k]!, best[k + 1]!]);
  return { kind: 'polygon', points };
}

/** Segmentation instances by mask IoU (greedyMatch): the pixels each covers, drawn at the image's size. */
export function matchMasks(predictions: Prediction[], truth: Truth[], size: { width: number; height: number }): ImageMatch {
  const predictionMasks = predictions.map((p) => rasterize(p.geometry, size.width, size.height));
  const truthMasks = truth.map((t) => rasterize(t.geometry, size.width, size.height));
  return greedyMatch(predictions, truth, (i, k) => maskIou(predictionMasks[i]!, truthMasks[k]!));
}

/**
 * OCR: a line found is right when its rotated box matches a labeled box (IoU >= MATCH_IOU, same label) and it
 * reads exactly the labeled text; a line found in the right place but misread is a false positive, and the
 * labeled line it missed a false negative.
 */
export const sameText = (p: Prediction, t: Truth) => (p.geometry.text ?? '') === (t.geometry.text ?? '');

/**
 * A classification image: its top class against its own class (only classes the training knows count). Right
 * is one true positive; wrong is a false positive (the class said) and a false negative (the class missed).
 */
function classOutcome(r: EngineResult | undefined, truthLabelId: number | null, categories: CocoCategory[]): ImageOutcome {
  const labelOf = new Map(categories.map((c) => [c.id, c.labelId]));
  const labelId = r ? labelOf.get(r.category_id) : undefined;
  const classification: ClassResult | null =
    r && labelId !== undefined
      ? {
          labelId,
          confidence: r.score,
          scores: Object.fromEntries(categories.map((c) => [String(c.labelId), r.scores?.[c.name] ?? 0])),
          truthLabelId,
          correct: truthLabelId === null ? null : truthLabelId === labelId,
        }
      : null;
  const correct = classification?.correct;
  return {
    predictions: [],
    groundTruth: [],
    classification,
    tp: correct === true ? 1 : 0,
    fp: correct === false ? 1 : 0,
    fn: correct === false || (classification === null && truthLabelId !== null) ? 1 : 0,
  };
}

/**
 * A multi-label classification image: the classes predicted (probability ≥ the test's conf) against its true
 * set, counted per class: predicted and true a true positive, predicted only a false positive, true only a false
 * negative. Correct is an exact set match (null without a true set). labelId/confidence are the most probable class.
 */
function classSetOutcome(r: EngineResult | undefined, truth: readonly number[] | null, categories: CocoCategory[]): ImageOutcome {
  const labelOf = new Map(categories.map((c) => [c.id, c.labelId]));
  const predicted = r ? [...new Set((r.category_ids ?? []).flatMap((id) => labelOf.get(id) ?? []))].sort((a, b) => a - b) : null;
  const scores = Object.fromEntries(categories.map((c) => [String(c.labelId), r?.scores?.[c.name] ?? 0]));
  const top = categories.reduce<CocoCategory | null>((best, c) => (best === null || scores[String(c.labelId)]! > scores[String(best.labelId)]! ? c : best), null);
  const classification: ClassResult | null =
    predicted && top
      ? {
          labelId: top.labelId,
          confidence: scores[String(top.labelId)]!,
          scores,
          truthLabelId: null,
          correct: truth === null ? null : truth.length === predicted.length && truth.every((l, i) => predicted[i] === l),
          multiLabel: true,
          labelIds: predicted,
          truthLabelIds: truth ? [...truth] : null,
        }
      : null;
  const said = new Set(predicted ?? []);
  const real = new Set(truth ?? []);
  // Without a true set nothing is counted, as for an unlabeled single-label image.
  const tp = truth === null ? 0 : [...said].filter((l) => real.has(l)).length;
  const fp = truth === null ? 0 : [...said].filter((l) => !real.has(l)).length;
  const fn = [...real].filter((l) => !said.has(l)).length;
  return { predictions: [], groundTruth: [], classification, tp, fp, fn };
}

/** Every image's outcome from the engine's predictions, by the training's task. */
export function outcomes(prepared: PreparedTest, found: EngineResult[]): Map<number, ImageOutcome> {
  const labelOf = new Map(prepared.categories.map((c) => [c.id, c.labelId]));
  const known = new Set(labelOf.values());
  if (prepared.task === 'classify' && prepared.classSets) {
    const sets = prepared.classSets;
    const byImage = new Map(found.map((r) => [r.image_id, r]));
    return new Map(
      prepared.images.map((img) => {
        const set = sets.get(img.id);
        const truth = set ? set.filter((l) => known.has(l)) : null;
        return [img.id, classSetOutcome(byImage.get(img.id), truth, prepared.categories)];
      }),
    );
  }
  if (prepared.task === 'classify') {
    const byImage = new Map(found.map((r) => [r.image_id, r]));
    return new Map(
      prepared.images.map((img) => {
        const truth = img.class_label_id !== null && known.has(img.class_label_id) ? img.class_label_id : null;
        return [img.id, classOutcome(byImage.get(img.id), truth, prepared.categories)];
      }),
    );
  }
  const sizeOf = new Map(prepared.images.map((i) => [i.id, i]));
  const predictions = group<Prediction>(
    found.flatMap((r) => {
      const labelId = labelOf.get(r.category_id);
      const size = sizeOf.get(r.image_id);
      const geometry = !size ? null : prepared.task === 'segment' ? outlineOf(r, size) : boxOf(r, prepared.task === 'obb' || prepared.task === 'ocr', size);
      if (geometry && prepared.task === 'ocr') geometry.text = r.text ?? '';
      // Each instance or rotated box also keeps its measurement fields (pixels) for MEASURE results.
      const measure = measureOf(r, prepared.task);
      return labelId === undefined || !geometry ? [] : [[r.image_id, { labelId, geometry, confidence: r.score, ...(measure ? { measure } : {}) }]];
    }),
  );
  const truth = group<Truth>(prepared.annotations.filter((a) => known.has(a.label_id)).map((a) => [a.image_id, { labelId: a.label_id, geometry: JSON.parse(a.geometry) as Geometry }]));
  return new Map(
    prepared.images.map((img) => {
      const p = predictions.get(img.id) ?? [];
      const t = truth.get(img.id) ?? [];
      const m =
        prepared.task === 'segment'
          ? matchMasks(p, t, img)
          : prepared.task === 'ocr'
            ? matchImage(p, t, true, sameText)
            : matchImage(p, t, prepared.task === 'obb');
      return [img.id, { ...m, classification: null }];
    }),
  );
}
