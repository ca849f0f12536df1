import type { AnalysisFixData, DatasetAnalysis, FindingFix, Geometry, NewAnnotation } from '@loupe/contracts';
import type { Kysely } from 'kysely';
import { fail } from '../../errors.js';
import { analysesRepo } from '../../db/analyses.js';
import type { Model } from '../../db/models.js';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../deps.js';
import { datasetVersion } from './manifest.js';

/** Moves each leaked twin that is not in the training split there (as the gallery's split change does). */
async function moveLeaked(deps: Deps, trx: Kysely<DB>, model: Model, pairs: [number, number][]): Promise<number> {
  const ids = [...new Set(pairs.flat())];
  if (ids.length === 0) return 0;
  const moving = (await deps.images.byIds(model.id, ids, trx)).filter((i) => i.split !== 'train').map((i) => i.id);
  return moving.length === 0 ? 0 : deps.images.setSplit(model.id, moving, 'train', trx);
}

/** What deleting annotations changes, read before the transaction: the images touched and the sets they keep. */
interface Deletion {
  count: number;
  images: { image: Awaited<ReturnType<Deps['images']['byIds']>>[number]; keep: NewAnnotation[] }[];
}

/** The model's current annotations among `annotationIds`, and for each image holding one, the set left without them. */
async function planDeletion(deps: Deps, model: Model, annotationIds: number[]): Promise<Deletion> {
  const ids = [...new Set(annotationIds)];
  const doomed = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await deps.db.selectFrom('annotations').select(['id', 'image_id']).where('model_id', '=', model.id).where('current', '=', 1).where('id', 'in', ids.slice(i, i + 500)).execute();
    rows.forEach((r) => doomed.set(r.id, r.image_id));
  }
  if (doomed.size === 0) return { count: 0, images: [] };
  const images = await deps.images.byIds(model.id, [...new Set(doomed.values())]);
  const current = await deps.annotations.current(images.map((i) => i.id));
  return {
    count: doomed.size,
    images: images.map((image) => ({
      image,
      keep: current.filter((a) => a.image_id === image.id && !doomed.has(a.id)).map((a) => ({ labelId: a.label_id, geometry: JSON.parse(a.geometry) as Geometry })),
    })),
  };
}

/**
 * Deletes annotations as a save in /mark without them would: each image touched gets a new annotation version
 * (the old one stays as history, its counters follow) and the model's data version rises once. An image saved
 * since the plan was read refuses with annotationConflict (the transaction rolls back).
 */
async function deleteAnnotations(deps: Deps, trx: Kysely<DB>, model: Model, plan: Deletion): Promise<number> {
  if (plan.count === 0) return 0;
  const now = deps.now();
  for (const { image, keep } of plan.images) {
    if (!(await deps.annotations.claimVersion(trx, image.id, image.annotation_version))) fail('annotationConflict');
    await deps.annotations.replace(trx, image, keep, now);
  }
  await deps.models.bumpDataVersion(trx, model.id);
  return plan.count;
}

/**
 * Applies one of a completed, current analysis's safe fixes (FindingFixes) to every finding that offers it, in
 * one transaction: moveLeaked, deleteDegenerate or deleteDoubles. Answers how many images moved or boxes went;
 * nothingToFix when none is left, analysisStale when the data changed since the analysis.
 */
export async function applyFix(deps: Deps, model: Model, analysisId: number, fix: FindingFix): Promise<AnalysisFixData> {
  const row = await analysesRepo(deps.db).find(model.id, analysisId);
  if (!row || row.status !== 'completed' || !row.result) fail('analysisNotFound');
  if (row.manifest_sha !== (await datasetVersion(deps, model)).sha) fail('analysisStale');
  const findings = (JSON.parse(row.result) as DatasetAnalysis).findings.filter((f) => f.fix === fix);
  const plan = fix === 'moveLeaked' ? null : await planDeletion(deps, model, findings.flatMap((f) => f.annotationIds ?? []));
  const fixed = await deps.db.transaction().execute(async (trx) =>
    plan ? deleteAnnotations(deps, trx, model, plan) : moveLeaked(deps, trx, model, findings.flatMap((f) => f.pairs ?? [])),
  );
  if (fixed === 0) fail('nothingToFix');
  return { fixed };
}
