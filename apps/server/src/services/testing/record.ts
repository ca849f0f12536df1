import type { ClassResult } from '@loupe/contracts';
import type { TestRunRow } from '../../db/test-runs.js';
import type { Deps } from '../deps.js';
import type { ImageMatch } from './matching.js';
import { outcomes, type EngineResult, type PreparedTest } from './outcomes.js';

export type { EngineResult, PreparedTest } from './outcomes.js';

/** What one image of a run keeps in test_run_images.detail. */
export interface TestImageDetail {
  predictions: ImageMatch['predictions'];
  groundTruth: ImageMatch['groundTruth'];
  /** Classification runs (absent in runs recorded before classification trained). */
  classification?: ClassResult | null;
}

/**
 * Stores a finished run: its detections or instances replace the images' earlier test results (what the
 * studio shows; a classification has none, its class stays in the run's detail), each image gets its matches
 * against the ground truth or its class (only labels the training knows count) and the
 * gallery's test state, and the run gets its totals and the engine's summary. One transaction.
 */
export async function recordResults(deps: Deps, run: TestRunRow, prepared: PreparedTest, found: EngineResult[], summary: Record<string, unknown> | null): Promise<void> {
  const matches = outcomes(prepared, found);
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
      const detail: TestImageDetail = { predictions: m.predictions, groundTruth: m.groundTruth, classification: m.classification };
      // A classified image has one result, its class: the gallery's "tested with results".
      // A multi-label image counts the classes it was given (none: tested without a result).
      const count = m.classification ? (m.classification.labelIds?.length ?? 1) : m.predictions.length;
      await deps.testRuns.saveImage(trx, run.id, imageId, { predictions: count, tp: m.tp, fp: m.fp, fn: m.fn, detail: JSON.stringify(detail) });
      const same = byCount.get(count);
      if (same) same.push(imageId);
      else byCount.set(count, [imageId]);
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
