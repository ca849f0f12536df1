import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { agentsRepo } from '../../db/agents.js';
import { isRotated, Limits, TrainableTypes, type Language, type TrainingData, type TrainingDetailData, type TrainingEvaluation, type TrainingListData, type TrainingStartBody, type TrainingTask } from '@loupe/contracts';
import { fail } from '../../errors.js';
import { publicFailure } from '../../runner/engine.js';
import { assertParamCeilings } from '../../runner/fair-use.js';
import type { Model } from '../../db/models.js';
import type { TrainingRow } from '../../db/trainings.js';
import type { User } from '../../db/users.js';
import type { Deps } from '../deps.js';
import { assertTrainingParams, savedParams } from './parameters.js';
import { resolvePretrained } from './pretrained.js';
import { blobClaims } from '../gallery/blob-cleanup.js';
import { freezeDataset, type FrozenDataset } from './snapshot.js';
import { setTrainingStatus } from './state.js';
import { dataStatsOf, verdictOf, type DataStats } from './advice.js';
import { isUniqueViolation } from '../../db/database.js';

/** The summary key each task's accuracy is (TrainingData.accuracy): mAP50, top-1, mIoU, character accuracy. */
const ACCURACY_KEY: Record<TrainingTask, string> = { detect: 'mAP50', obb: 'mAP50', classify: 'top1', segment: 'mIoU', ocr: 'char_acc' };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function trainingView(t: TrainingRow): TrainingData {
  const summary = t.summary ? (JSON.parse(t.summary) as Record<string, unknown>) : null;
  const labeled = Number(t.image_count);
  const headline = summary?.[ACCURACY_KEY[t.task]];
  const accuracy = typeof headline === 'number' ? headline : null;
  return {
    id: t.id,
    modelId: t.model_id,
    serialNo: t.version,
    version: `v${t.version}`,
    rotated: isRotated(t.task),
    task: t.task,
    status: t.status,
    phase: t.phase,
    // SPEC §5: no accuracy below 30 labeled images, nor for failed or cancelled trainings.
    accuracy: t.status === 'succeeded' && labeled >= Limits.labeledForAccuracy ? accuracy : null,
    labeledImages: labeled,
    totalImages: Number(t.total_images),
    labelKinds: Number(t.label_count),
    params: JSON.parse(t.parameters) as TrainingData['params'],
    dataVersion: t.data_version,
    startedAt: iso(t.created_at)!,
    endedAt: iso(t.ended_at),
    durationS: t.ended_at !== null ? Math.round((t.ended_at - t.created_at) / 100) / 10 : null,
    epoch: t.epoch,
    epochs: t.epochs,
    etaS: t.eta_s,
    summary,
    // Reasons stored before paths and tracebacks were kept out of them are cleaned on the way out too.
    error: t.error === null ? null : publicFailure(t.error),
    hasWeights: 'best' in (JSON.parse(t.artifacts) as Record<string, string>),
    resumable: t.status === 'failed' && t.resumable === 1,
    agentId: t.agent_id ?? null,
    // Issue 31: a succeeded training that learned nothing usable says so, with advice from its own data.
    verdict: verdictOf({
      task: t.task,
      status: t.status,
      summary,
      params: JSON.parse(t.parameters) as Record<string, unknown>,
      labelKinds: Number(t.label_count),
      stats: t.data_stats ? (JSON.parse(t.data_stats) as DataStats) : null,
    }),
  };
}

/**
 * Whether every blob is still stored. A few at a time: with S3 each is a HEAD request, and a dataset has
 * thousands of images; stops at the first one missing.
 */
async function allStored(deps: Deps, shas: string[]): Promise<boolean> {
  let next = 0;
  let ok = true;
  const worker = async () => {
    while (ok && next < shas.length) if (!(await deps.blobs.exists(shas[next++]!))) ok = false;
  };
  await Promise.all(Array.from({ length: Math.min(16, shas.length) }, worker));
  return ok;
}

/** What the engine trains for the model's type; `rotated` picks a type's second task (DETECTION, MEASURE: obb). */
export function taskOf(model: Model, rotated: boolean): TrainingTask {
  const tasks: readonly TrainingTask[] = TrainableTypes[model.type as keyof typeof TrainableTypes];
  return tasks.length > 1 && rotated ? 'obb' : tasks[0]!;
}

/**
 * Starts a training (SPEC §5): parameters checked by the engine's rules (one message per problem), one
 * training per model, the data frozen into a snapshot, then a queued job; the model shows 'training'.
 */
export async function startTraining(deps: Deps, user: User, model: Model, body: TrainingStartBody, lang: Language): Promise<TrainingData> {
  // Synthesis models have no trainer; MEASURE trains a segmenter or a rotated-box detector (TrainableTypes).
  if (!(model.type in TrainableTypes)) fail('wrongModelType');
  // No params in the body: the ones saved at /parameter (checked again, the rules may have changed since).
  const params = body.params ?? savedParams(model);
  assertTrainingParams(params, lang);
  // Fair use (issue 30): ceilings of this host and of the account's plan; the job limit is the queue's.
  assertParamCeilings(deps.config.fairUse, params, user.training_priority);
  // `pretrained` names one of the caller's own versions with weights; the job copies them (pretrained.ts).
  await resolvePretrained(deps, user.id, params.pretrained);
  if (await deps.trainings.active(model.id)) fail('ongoingTraining');
  if (await deps.testRuns.active(model.id)) fail('ongoingTesting');
  // The agent trains this model itself (issue 35): its versions come one at a time.
  if (await agentsRepo(deps.db).active(model.id)) fail('ongoingAgent');
  const frozen = await freezeDataset(deps, model);
  // The images' bytes are claimed until the snapshot names them: a delete of one of these images from now on
  // leaves its file (blob-cleanup.ts). One deleted since it was read is gone already: say so, store nothing.
  const claims = blobClaims(deps);
  try {
    await claims.add(...Object.values(frozen.blobs));
    if (!(await allStored(deps, Object.values(frozen.blobs)))) fail('trainingDataChanged');
    return await queueTraining(deps, user, model, body, params, frozen);
  } finally {
    await claims.release();
  }
}

/** Records the frozen data as a snapshot, the training and its queued job, in one transaction. */
async function queueTraining(deps: Deps, user: User, model: Model, body: TrainingStartBody, params: ReturnType<typeof savedParams>, frozen: FrozenDataset): Promise<TrainingData> {
  const manifestSha = frozen.contentHash;
  const created = await deps.blobs.putBuffer(manifestSha, frozen.json);
  const now = deps.now();
  let trainingId: number;
  try {
    trainingId = await deps.db.transaction().execute(async (trx) => {
      const jobId = await deps.jobs.insert(trx, {
        kind: 'training',
        model_id: model.id,
        owner_id: user.id,
        priority: user.training_priority,
        state: 'queued',
        payload: '{}',
        created_at: now,
      });
      const id = await insertTraining(deps, trx, model, frozen, { params, task: taskOf(model, body.rotated ?? frozen.hasRotated), jobId, agentId: null });
      await deps.jobs.update(jobId, { payload: JSON.stringify({ trainingId: id }) }, trx);
      return id;
    });
  } catch (e) {
    // The manifest blob is only ours to remove when this call wrote it and no snapshot kept it.
    if (created && !(await deps.db.selectFrom('dataset_snapshots').select('id').where('manifest_sha', '=', manifestSha).executeTakeFirst())) {
      await deps.blobs.remove(manifestSha);
    }
    // Two starts racing past the check: the one-active-job index decides.
    if (isUniqueViolation(e)) fail('ongoingTraining');
    throw e;
  }
  // The answer is what this call did (queued): read before the runner may take the job and move it on.
  const queued = await getTraining(deps, model, trainingId);
  deps.queue.kick();
  return queued;
}

/**
 * Records the frozen data as a snapshot and a queued training of it in the caller's transaction (the model shows
 * 'training'). `jobId` is the training's own job, or the agent's job that runs it inline (`agentId` set).
 */
export async function insertTraining(
  deps: Deps,
  trx: Kysely<DB>,
  model: Model,
  frozen: FrozenDataset,
  opts: { params: Record<string, unknown>; task: TrainingTask; jobId: number; agentId: number | null },
): Promise<number> {
  const now = deps.now();
  const snapshotId = await deps.trainings.insertSnapshot(trx, {
    model_id: model.id,
    data_version: model.data_version,
    content_hash: frozen.contentHash,
    manifest_sha: frozen.contentHash,
    image_count: frozen.counts.images,
    total_images: frozen.counts.total,
    label_count: frozen.counts.labels,
    annotation_count: frozen.counts.annotations,
    split_counts: JSON.stringify(frozen.counts.splits),
    created_at: now,
  }, Object.values(frozen.blobs));
  const version = await deps.trainings.nextVersion(trx, model.id);
  const id = await deps.trainings.insert(trx, {
    model_id: model.id,
    version,
    snapshot_id: snapshotId,
    job_id: opts.jobId,
    agent_id: opts.agentId,
    task: opts.task,
    parameters: JSON.stringify(opts.params),
    status: 'queued',
    phase: 'queued',
    data_version: model.data_version,
    eta_s: null,
    summary: null,
    error: null,
    created_at: now,
    started_at: null,
    ended_at: null,
  });
  await trx.insertInto('training_advice').values({ training_id: id, data_stats: JSON.stringify(dataStatsOf(frozen.manifest)) }).execute();
  await trx
    .updateTable('models')
    .set((eb) => ({ train_id: id, training_status: 'queued', project_status: 'training', training_count: eb('training_count', '+', 1), updated_at: now }))
    .where('id', '=', model.id)
    .execute();
  return id;
}

/**
 * A training the agent runs inside its own job (issue 35): the data frozen now (the training rules refuse as a
 * start does), its manifest stored, the rows written in one transaction with `within` (the agent records the
 * training in its state there, so a takeover finds it). No job is queued: the agent's job runs it.
 */
export async function createAgentTraining(
  deps: Deps,
  model: Model,
  opts: { params: Record<string, unknown>; jobId: number; agentId: number; within: (trx: Kysely<DB>, trainingId: number) => Promise<void> },
): Promise<number> {
  const frozen = await freezeDataset(deps, model);
  const claims = blobClaims(deps);
  try {
    await claims.add(...Object.values(frozen.blobs));
    if (!(await allStored(deps, Object.values(frozen.blobs)))) fail('trainingDataChanged');
    await deps.blobs.putBuffer(frozen.contentHash, frozen.json);
    return await deps.db.transaction().execute(async (trx) => {
      const id = await insertTraining(deps, trx, model, frozen, { params: opts.params, task: taskOf(model, frozen.hasRotated), jobId: opts.jobId, agentId: opts.agentId });
      await opts.within(trx, id);
      return id;
    });
  } finally {
    await claims.release();
  }
}

export async function listTrainings(deps: Deps, model: Model): Promise<TrainingListData> {
  const items = (await deps.trainings.list(model.id)).map(trainingView);
  return { items, total: items.length };
}

async function findTraining(deps: Deps, model: Model, trainingId: number): Promise<TrainingRow> {
  const t = await deps.trainings.find(model.id, trainingId);
  if (!t) fail('notFound');
  return t;
}

export async function getTraining(deps: Deps, model: Model, trainingId: number): Promise<TrainingData> {
  return trainingView(await findTraining(deps, model, trainingId));
}

export async function trainingDetail(deps: Deps, model: Model, trainingId: number): Promise<TrainingDetailData> {
  const t = await findTraining(deps, model, trainingId);
  const history = (await deps.trainings.epochs(t.id)).map((e) => ({ epoch: e.epoch, epochs: e.epochs, metrics: JSON.parse(e.metrics) as Record<string, unknown>, etaS: e.eta_s }));
  return { ...trainingView(t), history, evaluation: await evaluationOf(deps, t) };
}

/** The final evaluation in the run's results.json (kept in the blob store), for the /model charts. */
async function evaluationOf(deps: Deps, t: TrainingRow): Promise<TrainingEvaluation | null> {
  const sha = (JSON.parse(t.artifacts) as Record<string, string>).results;
  if (t.status !== 'succeeded' || !sha || !(await deps.blobs.exists(sha))) return null;
  try {
    const metrics = (JSON.parse((await deps.blobs.readBuffer(sha)).toString('utf8')) as { metrics?: Record<string, unknown> }).metrics ?? {};
    const matrix = metrics.confusion_matrix;
    return {
      per_class: (metrics.per_class ?? {}) as Record<string, unknown>,
      pr_curve: (metrics.pr_curve ?? null) as Record<string, unknown> | null,
      confusion_matrix: Array.isArray(matrix) ? (matrix as number[][]) : null,
    };
  } catch (e) {
    // A damaged results file costs the charts, not the page.
    deps.log.warn(`training ${t.id}: results.json unreadable: ${(e as Error).message}`);
    return null;
  }
}

/**
 * Stop (SPEC §4: stopping abandons progress, the training ends cancelled). A queued job is cancelled at
 * once; a running one gets SIGTERM here, or through cancel_requested when another process runs it.
 */
export async function stopTraining(deps: Deps, model: Model, trainingId: number): Promise<TrainingData> {
  const t = await findTraining(deps, model, trainingId);
  if (!['queued', 'preparing', 'training'].includes(t.status) || t.job_id === null) fail('trainingNotActive');
  await deps.jobs.update(t.job_id, { cancel_requested: 1 });
  const job = await deps.jobs.find(t.job_id);
  if (job?.state === 'queued') {
    // Claimed between the two reads? The claim's conditional update lost or won; only cancel what is still queued.
    const res = await deps.db.updateTable('jobs').set({ state: 'cancelled', finished_at: deps.now() }).where('id', '=', t.job_id).where('state', '=', 'queued').executeTakeFirst();
    if (Number(res.numUpdatedRows) === 1) await setTrainingStatus(deps, t.id, 'cancelled');
  } else {
    deps.queue.cancel(t.job_id);
  }
  return getTraining(deps, model, trainingId);
}
