import type { Geometry } from '@loupe/contracts';
import type { Image } from '../../db/images.js';
import type { TestRunRow } from '../../db/test-runs.js';
import type { Deps } from '../deps.js';
import { round } from '../formats/types.js';
import { fitToImage } from '../labeling/geometry.js';
import type { CocoCategory } from '../training/snapshot.js';
import { matchImage, type ImageMatch, type Prediction, type Truth } from './matching.js';

/** One detection in the engine's COCO results file (bbox x, y, w, h; rbox cx, cy, w, h, angle°). */
export interface EngineResult {
  image_id: number;
  category_id: number;
  score: number;
  bbox: number[];
  rbox?: number[];
}

/** What a test job gave the engine: the images, their ground truth and the categories the weights know. */
export interface PreparedTest {
  images: Image[];
  annotations: { id: number; image_id: number; label_id: number; geometry: string }[];
  categories: CocoCategory[];
  /** The training learned rotated boxes. */
  rotated: boolean;
}

/** What one image of a run keeps in test_run_images.detail. */
export interface TestImageDetail {
  predictions: ImageMatch['predictions'];
  groundTruth: ImageMatch['groundTruth'];
}

/**
 * A detection in the shape annotations have (labeling Geometry), so the studio draws and converts it as one.
 * The engine does not clip boxes to the image: they are clamped like annotations, and one with no area
 * inside the image is no detection (null). Rotated boxes stay as found (clamping would move the object).
 */
function geometryOf(r: EngineResult, rotated: boolean, size: { width: number; height: number }): Geometry | null {
  if (rotated && r.rbox) {
    const [cx, cy, w, h, angle] = r.rbox as [number, number, number, number, number];
    return { kind: 'rbox', cx, cy, w, h, angle };
  }
  const [x, y, w, h] = r.bbox as [number, number, number, number];
  const b = fitToImage({ kind: 'box', x1: x, y1: y, x2: round(x + w, 2), y2: round(y + h, 2) }, size);
  return b?.kind === 'box' && b.x2 > b.x1 && b.y2 > b.y1 ? b : null;
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
 * Stores a finished run: its detections replace the images' earlier test results (what the studio shows),
 * each image gets its matches against the ground truth (only labels the training knows count) and the
 * gallery's test state, and the run gets its totals and the engine's summary. One transaction.
 */
export async function recordResults(deps: Deps, run: TestRunRow, prepared: PreparedTest, found: EngineResult[], summary: Record<string, unknown> | null): Promise<void> {
  const labelOf = new Map(prepared.categories.map((c) => [c.id, c.labelId]));
  const sizeOf = new Map(prepared.images.map((i) => [i.id, i]));
  const predictions = group<Prediction>(
    found.flatMap((r) => {
      const labelId = labelOf.get(r.category_id);
      const size = sizeOf.get(r.image_id);
      const geometry = size ? geometryOf(r, prepared.rotated, size) : null;
      return labelId === undefined || !geometry ? [] : [[r.image_id, { labelId, geometry, confidence: r.score }]];
    }),
  );
  const known = new Set(labelOf.values());
  const truth = group<Truth>(prepared.annotations.filter((a) => known.has(a.label_id)).map((a) => [a.image_id, { labelId: a.label_id, geometry: JSON.parse(a.geometry) as Geometry }]));
  const matches = new Map(prepared.images.map((img) => [img.id, matchImage(predictions.get(img.id) ?? [], truth.get(img.id) ?? [], prepared.rotated)]));
  const now = deps.now();

  await deps.db.transaction().execute(async (trx) => {
    // An image or label deleted while the engine ran has nothing left to attach results to.
    const wanted = [...matches.keys()];
    const ids: number[] = [];
    for (let i = 0; i < wanted.length; i += 500) {
      ids.push(...(await trx.selectFrom('images').select('id').where('id', 'in', wanted.slice(i, i + 500)).execute()).map((r) => r.id));
    }
    const labels = new Set((await deps.labels.list(run.model_id, trx)).map((l) => l.id));
    const rows = ids.flatMap((imageId) =>
      matches
        .get(imageId)!
        .predictions.filter((p) => labels.has(p.labelId))
        .map((p) => ({ image_id: imageId, model_id: run.model_id, label_id: p.labelId, geometry: JSON.stringify(p.geometry), confidence: p.confidence, test_run_id: run.id, created_at: now })),
    );
    await deps.testPredictions.replace(trx, run.model_id, ids, rows);
    const totals = { tp: 0, fp: 0, fn: 0 };
    const byCount = new Map<number, number[]>();
    for (const imageId of ids) {
      const m = matches.get(imageId)!;
      totals.tp += m.tp;
      totals.fp += m.fp;
      totals.fn += m.fn;
      const detail: TestImageDetail = { predictions: m.predictions, groundTruth: m.groundTruth };
      await deps.testRuns.saveImage(trx, run.id, imageId, { predictions: m.predictions.length, tp: m.tp, fp: m.fp, fn: m.fn, detail: JSON.stringify(detail) });
      const same = byCount.get(m.predictions.length);
      if (same) same.push(imageId);
      else byCount.set(m.predictions.length, [imageId]);
    }
    // The gallery's test filters: one update per distinct result count rather than one per image.
    for (const [count, same] of byCount) {
      for (let i = 0; i < same.length; i += 500) {
        await trx
          .updateTable('images')
          .set({ test_state: 'tested', test_hits: count > 0 ? 1 : 0, test_result_count: count })
          .where('id', 'in', same.slice(i, i + 500))
          .execute();
      }
    }
    await deps.testRuns.update(run.id, { done: ids.length, ...totals, summary: summary ? JSON.stringify(summary) : null }, trx);
  });
}
