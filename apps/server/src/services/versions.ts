import {
  ActiveTrainingStatuses,
  VersionNoteMax,
  type ClassDifference,
  type ParamDifference,
  type TrainingDetailData,
  type VersionCompareData,
  type VersionData,
  type VersionListData,
} from '@loupe/contracts';
import type { Updateable } from 'kysely';
import { fail } from '../errors.js';
import type { ModelsTable } from '../db/schema.js';
import type { Model } from '../db/models.js';
import type { TrainingRow } from '../db/trainings.js';
import type { Deps } from './deps.js';
import { removeBlobsIfUnused } from './gallery/blob-cleanup.js';
import { checkText } from './models.js';
import { trainingDetail, trainingView } from './training/trainings.js';
import { checkpointShas } from './training/workdir.js';
import { storedSuggestion } from './testing/suggest.js';

/**
 * A model's versions (issue 31 item 4): the default version, notes, deletion and the comparison of two.
 *
 * The default version is what a test or an export uses when the request names no version (and, later,
 * stations). The user may choose one (models.default_training_id); without a choice, or when the chosen one
 * can no longer be used, it is the latest succeeded version with weights, as before. Deleting the chosen one
 * clears the choice in the same transaction, so the latest takes over again.
 */

const ACTIVE_TESTS = ['queued', 'preparing', 'testing'] as const;

const weightsOf = (t: Pick<TrainingRow, 'artifacts'>): string | undefined => {
  try {
    const best = (JSON.parse(t.artifacts) as Record<string, unknown>).best;
    return typeof best === 'string' ? best : undefined;
  } catch {
    return undefined;
  }
};

/** A version tests and exports can use: succeeded, with its weights still stored. */
export async function isUsable(deps: Deps, t: TrainingRow): Promise<boolean> {
  const best = weightsOf(t);
  return t.status === 'succeeded' && best !== undefined && (await deps.blobs.exists(best));
}

/**
 * The version used where none is named: the chosen default when it passes `usable`, else the first of `rows`
 * (newest first) that does. Tests and exports pass their own test of "usable".
 */
export async function pickDefault<T extends { id: number }>(model: Pick<Model, 'default_training_id'>, rows: readonly T[], usable: (t: T) => boolean | Promise<boolean>): Promise<T | undefined> {
  const chosen = rows.find((t) => t.id === model.default_training_id);
  if (chosen && (await usable(chosen))) return chosen;
  // One at a time, newest first: usually the first one is it, and each test may ask the blob store.
  for (const t of rows) if (await usable(t)) return t;
  return undefined;
}

/** The model's default version (see pickDefault), or undefined when no version is usable. */
export async function defaultTraining(deps: Deps, model: Model, usable: (t: TrainingRow) => boolean | Promise<boolean> = (t) => isUsable(deps, t)): Promise<TrainingRow | undefined> {
  return pickDefault(model, await deps.trainings.list(model.id), usable);
}

function versionView(t: TrainingRow, model: Model, effectiveId: number | null): VersionData {
  return { ...trainingView(t), note: t.note, isDefault: t.id === model.default_training_id, inUse: t.id === effectiveId, suggested: storedSuggestion(t) };
}

export async function listVersions(deps: Deps, model: Model): Promise<VersionListData> {
  const rows = await deps.trainings.list(model.id);
  const effective = await pickDefault(model, rows, (t) => isUsable(deps, t));
  const effectiveId = effective?.id ?? null;
  const chosen = rows.some((t) => t.id === model.default_training_id) ? model.default_training_id : null;
  return { items: rows.map((t) => versionView(t, model, effectiveId)), defaultTrainingId: chosen ?? null, effectiveTrainingId: effectiveId };
}

async function findVersion(deps: Deps, model: Model, trainingId: number): Promise<TrainingRow> {
  const t = await deps.trainings.find(model.id, trainingId);
  if (!t) fail('notFound');
  return t;
}

/** Chooses the default version (null: none, the latest usable one applies). Only a usable version can be chosen. */
export async function setDefaultVersion(deps: Deps, model: Model, trainingId: number | null): Promise<VersionListData> {
  if (trainingId !== null) {
    const t = await findVersion(deps, model, trainingId);
    if (!(await isUsable(deps, t))) fail('versionNotUsable', { version: `v${t.version}` });
  }
  await deps.db.updateTable('models').set({ default_training_id: trainingId, updated_at: deps.now() }).where('id', '=', model.id).execute();
  return listVersions(deps, { ...model, default_training_id: trainingId });
}

/** SPEC §5: a note of at most 100 characters (trimmed; empty clears it). */
export async function setVersionNote(deps: Deps, model: Model, trainingId: number, note: string): Promise<VersionData> {
  const t = await findVersion(deps, model, trainingId);
  const clean = checkText('note', note, VersionNoteMax, false);
  await deps.trainings.update(t.id, { note: clean });
  const rows = await deps.trainings.list(model.id);
  const effective = await pickDefault(model, rows, (x) => isUsable(deps, x));
  return versionView(rows.find((x) => x.id === t.id)!, model, effective?.id ?? null);
}

/** Why a version cannot be deleted now, or null: it trains, a test or export of it runs, or a queued training starts from it. */
async function busyReason(d: Deps['db'], model: Model, t: { id: number; status: string }): Promise<string | null> {
  if ((ActiveTrainingStatuses as readonly string[]).includes(t.status)) return 'training';
  const test = await d.selectFrom('test_runs').select('id').where('training_id', '=', t.id).where('status', 'in', [...ACTIVE_TESTS]).executeTakeFirst();
  if (test) return 'testing';
  const pack = await d.selectFrom('model_packs').select('id').where('training_id', '=', t.id).where('status', '=', 'packing').executeTakeFirst();
  if (pack) return 'exporting';
  // A queued training of the same account that starts from these weights copies them only when it runs.
  const starts = await d
    .selectFrom('trainings as x')
    .innerJoin('models as m', 'm.id', 'x.model_id')
    .select(['x.parameters'])
    .where('m.owner_id', '=', model.owner_id)
    .where('x.status', 'in', [...ActiveTrainingStatuses])
    .execute();
  const named = starts.some((r) => {
    try {
      return String((JSON.parse(r.parameters) as Record<string, unknown>).pretrained ?? '') === String(t.id);
    } catch {
      return false;
    }
  });
  return named ? 'pretrained' : null;
}

/**
 * Deletes a version with its epochs, tests and packs (cascade), then the files only it used: its weights and
 * results, its packs, and its dataset snapshot when no other version froze the same data (removeBlobsIfUnused
 * keeps every file another row still names). Refused (versionBusy) while it trains, a test or an export of it
 * runs, or a queued training starts from it. The model's latest training and test, and the default version,
 * move to what is left. Deleting the last usable version is allowed (the page asks first): tests and exports
 * then say there is no model, as before the first training.
 */
export async function deleteVersion(deps: Deps, model: Model, trainingId: number): Promise<VersionListData> {
  const found = await findVersion(deps, model, trainingId);
  const now = deps.now();
  const files = await deps.db.transaction().execute(async (trx) => {
    // Taking the model row first serialises with a training, test or export start of this model (they update it too).
    await trx.updateTable('models').set({ updated_at: now }).where('id', '=', model.id).execute();
    const t = await trx.selectFrom('trainings').select(['id', 'status', 'artifacts', 'checkpoint', 'snapshot_id', 'version']).where('id', '=', found.id).executeTakeFirst();
    if (!t) fail('notFound');
    const why = await busyReason(trx, model, t);
    if (why) fail('versionBusy', { version: `v${t.version}`, reason: why });

    const runs = (await trx.selectFrom('test_runs').select('id').where('training_id', '=', t.id).execute()).map((r) => r.id);
    const packShas = (await trx.selectFrom('model_packs').select('artifact_sha').where('training_id', '=', t.id).where('artifact_sha', 'is not', null).execute()).map((p) => p.artifact_sha!);
    const outputs = Object.values(JSON.parse(t.artifacts) as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
    const sharedSnapshot = await trx.selectFrom('trainings').select('id').where('snapshot_id', '=', t.snapshot_id).where('id', '!=', t.id).executeTakeFirst();
    let frozen: string[] = [];
    if (!sharedSnapshot) {
      frozen = (await trx.selectFrom('snapshot_blobs').select('sha256').where('snapshot_id', '=', t.snapshot_id).execute()).map((r) => r.sha256);
      const snap = await trx.selectFrom('dataset_snapshots').select('manifest_sha').where('id', '=', t.snapshot_id).executeTakeFirst();
      if (snap) frozen.push(snap.manifest_sha);
    }

    // Predictions of this version's tests are shown nowhere once the tests are gone.
    for (let i = 0; i < runs.length; i += 500) await trx.deleteFrom('test_predictions').where('test_run_id', 'in', runs.slice(i, i + 500)).execute();
    await trx.deleteFrom('trainings').where('id', '=', t.id).execute();
    if (!sharedSnapshot) await trx.deleteFrom('dataset_snapshots').where('id', '=', t.snapshot_id).execute();

    // What the model points at: its latest training and test, and the chosen default.
    const m = await trx.selectFrom('models').select(['train_id', 'test_id', 'default_training_id']).where('id', '=', model.id).executeTakeFirstOrThrow();
    const patch: Updateable<ModelsTable> = {};
    if (m.default_training_id === t.id) patch.default_training_id = null;
    if (m.train_id === t.id) {
      const next = await trx.selectFrom('trainings').select(['id', 'status']).where('model_id', '=', model.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
      patch.train_id = next?.id ?? null;
      patch.training_status = next?.status ?? 'notTrained';
    }
    if (m.test_id !== null && runs.includes(m.test_id)) {
      const next = await trx.selectFrom('test_runs').select(['id', 'status']).where('model_id', '=', model.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
      patch.test_id = next?.id ?? null;
      patch.test_status = next?.status ?? 'notTested';
      // The gallery's tested/hits flags came from the deleted test: the images are untested again.
      await trx.updateTable('images').set({ test_state: 'untested', test_hits: 0, test_result_count: null }).where('model_id', '=', model.id).execute();
    }
    if (Object.keys(patch).length > 0) await trx.updateTable('models').set(patch).where('id', '=', model.id).execute();
    // A failed version may have kept its checkpoint for a resume.
    return [...outputs, ...packShas, ...frozen, ...checkpointShas(t)];
  });
  await removeBlobsIfUnused(deps, files);
  const fresh = await deps.models.find(model.owner_id, model.id);
  return listVersions(deps, fresh ?? model);
}

/** Numbers in a class's metrics that are counts, not scores: shown by the training pages, not compared. */
const COUNT_KEYS = new Set(['instances', 'images', 'pixels']);

function perClassOf(d: TrainingDetailData): Record<string, Record<string, unknown>> {
  const fromEval = d.evaluation?.per_class;
  const fromSummary = (d.summary as { per_class?: unknown } | null)?.per_class;
  const pc = fromEval && Object.keys(fromEval).length > 0 ? fromEval : fromSummary;
  return pc && typeof pc === 'object' ? (pc as Record<string, Record<string, unknown>>) : {};
}

const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function paramDifferences(a: Record<string, unknown>, b: Record<string, unknown>): ParamDifference[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const value = (v: unknown) => (v === undefined ? null : (v as ParamDifference['a']));
  return keys.filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)).map((key) => ({ key, a: value(a[key]), b: value(b[key]) }));
}

export function classDifferences(a: Record<string, Record<string, unknown>>, b: Record<string, Record<string, unknown>>): ClassDifference[] {
  const out: ClassDifference[] = [];
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const name of names) {
    const ma = a[name] ?? {};
    const mb = b[name] ?? {};
    const metrics = [...new Set([...Object.keys(ma), ...Object.keys(mb)])].filter((k) => !COUNT_KEYS.has(k) && (numberOrNull(ma[k]) !== null || numberOrNull(mb[k]) !== null));
    for (const metric of metrics) out.push({ name, metric, a: numberOrNull(ma[metric]), b: numberOrNull(mb[metric]) });
  }
  return out;
}

/** Two versions of the model side by side: their curves (history), the parameters that differ, and per-class metrics. */
export async function compareVersions(deps: Deps, model: Model, aId: number, bId: number): Promise<VersionCompareData> {
  const a = await trainingDetail(deps, model, aId);
  const b = await trainingDetail(deps, model, bId);
  return { a, b, params: paramDifferences(a.params, b.params), perClass: classDifferences(perClassOf(a), perClassOf(b)) };
}
