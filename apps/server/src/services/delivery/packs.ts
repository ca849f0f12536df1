import { failure, isRotated, type TrainingTask, type ExportStartBody, type PackKind, type PackStatusData, type PackStatusQuery, type SdkType } from '@loupe/contracts';
import { fail } from '../../errors.js';
import { packsRepo, type Pack } from '../../db/packs.js';
import type { TrainingRow } from '../../db/trainings.js';
import type { User } from '../../db/users.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { ownModel } from '../models.js';
import { defaultTraining } from '../versions.js';
import { isUniqueViolation } from '../../db/database.js';

/** Why a pack ends failed when the server stops or dies while it is made; the user exports again. */
export const PACK_SHUTDOWN_REASON = failure('serverStoppedPack');

export interface ExportPayload {
  packId: number;
}

const packs = (deps: Deps) => packsRepo(deps.db);

const NONE = { id: null, inputW: null, inputH: null, modelUrl: null, trainingId: null, version: null, maxDet: null, sdkType: null, rotated: false, fileName: null, bytes: null, error: null };

export function packView(p: Pack, version: number): PackStatusData {
  return {
    packStatus: p.status,
    id: p.id,
    inputW: p.input_w,
    inputH: p.input_h,
    // Local blob storage: the file comes from ExportPaths.download (SPEC §7: no modelUrl).
    modelUrl: null,
    kind: p.kind,
    trainingId: p.training_id,
    version: `v${version}`,
    maxDet: p.max_det,
    sdkType: p.sdk_type as SdkType | null,
    rotated: p.rotated === 1,
    fileName: p.file_name,
    bytes: p.bytes === null ? null : Number(p.bytes),
    error: p.error,
  };
}

/** Characters no file system accepts in a name, and control characters. */
const UNSAFE = /[\\/:*?"<>|\p{Cc}]+/gu;

/**
 * `<model>-v<version>-<W>x<H>.onnx`, or `…-sdk-<type>.zip`. An OCR model is two graphs (the text detector and
 * the recognizer): its model file is `…-ocr.zip` with both.
 */
export function packFileName(modelName: string, version: number, body: Pick<ExportStartBody, 'kind' | 'inputW' | 'inputH' | 'sdkType'>, task: TrainingTask): string {
  const base = `${modelName.replace(UNSAFE, '_').trim() || 'model'}-v${version}-${body.inputW}x${body.inputH}`;
  if (body.kind === 'sdk') return `${base}-sdk-${body.sdkType}.zip`;
  return task === 'ocr' ? `${base}-ocr.zip` : `${base}.onnx`;
}

function badInput(field: string, reason: string): never {
  fail('exportFailed', { field, reason }, { field, reason });
}

/** The training to export: the one asked for, else the default version (else the latest succeeded one); it must have weights (8006). */
async function exportable(deps: Deps, model: Model, trainingId: number | undefined): Promise<TrainingRow> {
  const hasWeights = (t: TrainingRow) => t.status === 'succeeded' && 'best' in (JSON.parse(t.artifacts) as Record<string, string>);
  if (trainingId !== undefined) {
    const t = await deps.trainings.find(model.id, trainingId);
    if (!t || !hasWeights(t)) fail('noModelToDownload');
    return t;
  }
  // The version the user chose as default wins over the latest (services/versions.ts).
  const t = await defaultTraining(deps, model, hasWeights);
  if (!t) fail('noModelToDownload');
  return t;
}

/**
 * Starts an export (SPEC §5 export rules, §6 download permission): the chosen training's weights become an
 * ONNX model, or an SDK ZIP around it, made by an `export` job. The same request while it runs answers
 * that pack; a different one waits for it (exportInProgress).
 */
export async function startPack(deps: Deps, user: User, body: ExportStartBody): Promise<PackStatusData> {
  const model = await ownModel(deps, user, body.modelId);
  if (user.download_permission !== 1) fail('noDownloadPermission');
  for (const field of ['inputW', 'inputH', 'maxDet'] as const) if (body[field] <= 0) badInput(field, 'range');
  if (body.kind === 'sdk' && !body.sdkType) badInput('sdkType', 'enum');
  const training = await exportable(deps, model, body.trainingId);
  // SPEC §8 9002: the data changed after this training froze it; what it learned no longer matches.
  if (model.data_version > training.data_version) fail('annotationChanged');
  if (body.rotated !== isRotated(training.task)) badInput('rotated', 'invalid');
  const sdkType = body.kind === 'sdk' ? body.sdkType! : null;

  const running = await packs(deps).packing(model.id);
  if (running) {
    const same = running.kind === body.kind && running.training_id === training.id && running.input_w === body.inputW && running.input_h === body.inputH && running.max_det === body.maxDet && running.sdk_type === sdkType;
    if (same) return packView(running, training.version);
    fail('exportInProgress');
  }
  const now = deps.now();
  let packId: number;
  try {
    packId = await deps.db.transaction().execute(async (trx) => {
      const jobId = await deps.jobs.insert(trx, { kind: 'export', model_id: model.id, owner_id: user.id, priority: user.training_priority, state: 'queued', payload: '{}', created_at: now });
      const id = await packs(deps).insert(trx, {
        model_id: model.id,
        training_id: training.id,
        job_id: jobId,
        kind: body.kind,
        status: 'packing',
        input_w: body.inputW,
        input_h: body.inputH,
        max_det: body.maxDet,
        sdk_type: sdkType,
        rotated: body.rotated ? 1 : 0,
        artifact_sha: null,
        file_name: packFileName(model.name, training.version, body, training.task),
        bytes: null,
        error: null,
        created_at: now,
        ended_at: null,
      });
      await deps.jobs.update(jobId, { payload: JSON.stringify({ packId: id } satisfies ExportPayload) }, trx);
      return id;
    });
  } catch (e) {
    // Two exports racing past the check: the one-active-job index decides.
    if (isUniqueViolation(e)) fail('exportInProgress');
    throw e;
  }
  deps.queue.kick();
  return packView((await packs(deps).byId(packId))!, training.version);
}

/** SPEC §7 modelPackStatus: the model's latest pack of the kind (default: the model file), or `none`. */
export async function packStatus(deps: Deps, user: User, q: PackStatusQuery): Promise<PackStatusData> {
  const model = await ownModel(deps, user, q.modelId);
  const kind: PackKind = q.kind ?? 'model';
  const p = await packs(deps).latest(model.id, kind);
  if (!p) return { ...NONE, packStatus: 'none', kind };
  const t = await deps.trainings.byId(p.training_id);
  return packView(p, t?.version ?? 0);
}

/**
 * The finished pack behind SPEC §7's download URL: the caller's own (else 404), with download permission
 * (8008), done (packNotReady), and the size in the URL the pack's (else 404: a stale link of another export).
 */
export async function packForDownload(deps: Deps, user: User, id: number, inputW: number, inputH: number): Promise<Pack & { artifact_sha: string; file_name: string }> {
  const p = await packs(deps).byId(id);
  if (!p || !(await deps.models.find(user.id, p.model_id))) fail('notFound');
  if (user.download_permission !== 1) fail('noDownloadPermission');
  if (p.status !== 'success' || !p.artifact_sha || !p.file_name) fail('packNotReady');
  if (p.input_w !== inputW || p.input_h !== inputH) fail('notFound');
  if (!(await deps.blobs.exists(p.artifact_sha))) fail('packNotReady');
  return p as Pack & { artifact_sha: string; file_name: string };
}

/** Ends a pack and its job; `patch` carries the stored file on success. */
export async function setPackStatus(deps: Deps, packId: number, status: 'success' | 'failed', patch: { artifact_sha?: string; bytes?: number; error?: string } = {}): Promise<void> {
  const p = await packs(deps).byId(packId);
  if (!p) return;
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await packs(deps).update(packId, { status, ended_at: now, ...patch }, trx);
    if (p.job_id !== null) {
      await deps.jobs.update(p.job_id, { state: status === 'success' ? 'succeeded' : 'failed', finished_at: now, ...(patch.error ? { error: patch.error } : {}) }, trx);
    }
  });
}
