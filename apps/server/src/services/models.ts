import { randomBytes } from 'node:crypto';
import { LabelingLimits, Limits, ModelTypes, type ModelCreateBody, type ModelData, type ModelListData, type ModelListQuery, type ModelUpdateBody } from '@loupe/contracts';
import { fail, required } from '../errors.js';
import type { ModelRow } from '../db/models.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { removeBlobsIfUnused } from './gallery/blob-cleanup.js';
import { checkpointShas } from './training/workdir.js';
import { checkName } from './rules.js';
import { isUniqueViolation } from '../db/database.js';

/** Trimmed, non-empty and within the length limit; the field key names it in the message. */
export function checkText(field: string, value: string | undefined, max: number, needed: boolean): string {
  const v = (value ?? '').trim();
  if (needed && !v) required(field);
  if (v.length > max) fail('fieldTooLong', { field, max });
  return v;
}

export function modelView(row: ModelRow): ModelData {
  const total = Number(row.total_images);
  return {
    id: row.id,
    projectId: row.id,
    trainId: row.train_id,
    name: row.name,
    note: row.note,
    code: row.code,
    type: row.type,
    sidebarType: ModelTypes[row.type].sidebarType,
    productType: ModelTypes[row.type].segment,
    projectStatus: row.project_status,
    trainingStatus: row.training_status,
    testStatus: row.test_status,
    createdAt: new Date(row.created_at).toISOString(),
    trainingCount: row.training_count,
    labeledImages: Number(row.labeled_images),
    totalImages: total,
    labelCount: Number(row.label_count),
    belowRecommendedImages: total < Limits.imagesRecommended,
    recommendedImages: Limits.imagesRecommended,
    dataVersion: row.data_version,
    multiLabel: row.type === 'classification' && row.multi_label === 1,
  };
}

/** The caller's model or notFound: every dataset call goes through here, so nothing leaks across accounts. */
export async function ownModel(deps: Deps, user: User, modelId: number) {
  const model = await deps.models.find(user.id, modelId);
  if (!model) fail('notFound');
  return model;
}

export async function getModel(deps: Deps, user: User, modelId: number): Promise<ModelData> {
  const row = await deps.models.findWithCounts(user.id, modelId);
  if (!row) fail('notFound');
  return modelView(row);
}

export async function createModel(deps: Deps, user: User, body: ModelCreateBody): Promise<ModelData> {
  const name = checkName('name', checkText('name', body.name, Limits.modelNameMax, true));
  const note = checkText('note', body.note, Limits.modelNoteMax, false);
  const key = name.toLowerCase();
  if (await deps.models.nameTaken(user.id, key)) fail('modelNameExists');
  const now = deps.now();
  let id: number;
  try {
    id = await deps.models.insert({
      owner_id: user.id,
      name,
      name_key: key,
      note,
      code: `${ModelTypes[body.type].segment}-${randomBytes(6).toString('hex')}`,
      type: body.type,
      project_status: 'no',
      training_status: 'notTrained',
      test_status: 'notTested',
      train_id: null,
      min_annotation_area: LabelingLimits.minAreaDefault,
      created_at: now,
      updated_at: now,
    });
  } catch (e) {
    // Two creates racing past the check above: the unique index decides.
    if (isUniqueViolation(e)) fail('modelNameExists');
    throw e;
  }
  return getModel(deps, user, id);
}

export async function updateModel(deps: Deps, user: User, modelId: number, body: ModelUpdateBody): Promise<ModelData> {
  await ownModel(deps, user, modelId);
  const patch: { name?: string; name_key?: string; note?: string; updated_at: number } = { updated_at: deps.now() };
  if (body.name !== undefined) {
    patch.name = checkName('name', checkText('name', body.name, Limits.modelNameMax, true));
    patch.name_key = patch.name.toLowerCase();
    if (await deps.models.nameTaken(user.id, patch.name_key, modelId)) fail('modelNameExists');
  }
  if (body.note !== undefined) patch.note = checkText('note', body.note, Limits.modelNoteMax, false);
  try {
    await deps.models.update(user.id, modelId, patch);
  } catch (e) {
    if (isUniqueViolation(e)) fail('modelNameExists');
    throw e;
  }
  return getModel(deps, user, modelId);
}

export async function listModels(deps: Deps, user: User, q: ModelListQuery): Promise<ModelListData> {
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? 20;
  const { total, items } = await deps.models.list(user.id, { ...q, page, pageSize });
  return { total, page, pageSize, items: items.map(modelView) };
}

/** What a model's trainings left besides its images: snapshot bytes, manifests, weights, results and packs. */
async function outputsOfModel(deps: Deps, modelId: number) {
  const trainings = await deps.db.selectFrom('trainings').select(['id', 'artifacts', 'checkpoint']).where('model_id', '=', modelId).execute();
  const snapshots = deps.db.selectFrom('dataset_snapshots').where('model_id', '=', modelId);
  const frozen = await deps.db.selectFrom('snapshot_blobs').select('sha256').distinct().where('snapshot_id', 'in', snapshots.select('id')).execute();
  const manifests = await snapshots.select('manifest_sha').execute();
  const packs = await deps.db.selectFrom('model_packs').select('artifact_sha').where('model_id', '=', modelId).where('artifact_sha', 'is not', null).execute();
  return {
    frozen: frozen.map((r) => r.sha256),
    outputs: [
      ...manifests.map((m) => m.manifest_sha),
      ...trainings.flatMap((t) => Object.values(JSON.parse(t.artifacts) as Record<string, string>)),
      ...packs.map((p) => p.artifact_sha!),
      // Failed versions may keep a checkpoint for a resume.
      ...trainings.flatMap(checkpointShas),
    ],
  };
}

/**
 * Deletes the model with its images, labels, annotations, trainings, tests and packs (cascade), then what only
 * it used: image and snapshot blobs nobody else refers to, its trainings' weights, results and manifests, its
 * packs, and the checkpoints failed trainings kept for a resume. Refused while a training or test runs: stop it
 * first.
 */
export async function deleteModel(deps: Deps, user: User, modelId: number): Promise<void> {
  await ownModel(deps, user, modelId);
  if (await deps.trainings.active(modelId)) fail('ongoingTraining');
  if (await deps.testRuns.active(modelId)) fail('ongoingTesting');
  const shas = await deps.images.blobsOfModel(modelId);
  const left = await outputsOfModel(deps, modelId);
  await deps.models.remove(user.id, modelId);
  // Content-addressed: identical bytes elsewhere share a key, so each is kept while another row names it.
  await removeBlobsIfUnused(deps, [...shas, ...left.frozen, ...left.outputs]);
}
