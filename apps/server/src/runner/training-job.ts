import fs from 'node:fs';
import path from 'node:path';
import { failure, type TrainingPhase } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import type { Deps } from '../services/deps.js';
import { AppError } from '../errors.js';
import { engineParams } from '../services/training/pretrained.js';
import { failTraining } from '../services/training/resume.js';
import { setTrainingStatus } from '../services/training/state.js';
import { dropCheckpoint, restoreCheckpoint, saveCheckpoint } from '../services/training/workdir.js';
import { BlobNotFound } from '../adapters/blob-store.js';
import { keep, linkBlob } from './artifacts.js';
import { deviceSpec, engineEnv, runEngine, trainCommand, type EngineEvent, type EngineRun } from './engine.js';
import { trainingBudgetS } from './fair-use.js';

/** Why a training ends failed when the server stops under it; the user resumes or starts it again. */
export const SHUTDOWN_REASON = failure('serverStoppedTraining');

export interface TrainingPayload {
  trainingId: number;
  /** Continue from the checkpoint a failed run left in the training's folder (`train --resume`). */
  resume?: boolean;
  /** A wall-clock limit below the plan's: the agent's training phase (issue 35) gets what its budget leaves. */
  maxSeconds?: number;
}

/** What the runner hands a job: where to work and how to learn that the user asked it to stop. */
export interface JobContext {
  /** Local scratch for this run of the job, deleted when it ends. */
  workDir: string;
  /** 1 on the first run; more when the job was taken over after its runner died (a training then resumes). */
  attempt: number;
  /** The engine process, once started, so stop can SIGTERM it. */
  onStart(run: EngineRun): void;
  cancelled(): boolean;
  shuttingDown(): boolean;
  /** Stopped by the runner because the job ran past its time limit (JobHandler.timeoutS). */
  timedOut(): boolean;
  /** The runner lost the job's lease: another runner owns it now, so nothing may be recorded. */
  lost(): boolean;
}

/**
 * Materialises the training's snapshot (manifest + image blobs linked by hash) in the job's work folder, runs
 * `train --spec job.json --workdir DIR [--resume]`, and turns the engine's events into the training's phase,
 * epochs, summary and artifacts. After each epoch the engine's last.pt (and best.pt) go to the blob store as the
 * training's checkpoint, so a resume (asked by the user, or a takeover after this runner died) works on any
 * runner. The final state: succeeded (exit 0), cancelled (exit 130 after a stop), else failed with the engine's
 * own message, resumable when a checkpoint is kept.
 */
export async function runTrainingJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const payload = JSON.parse(job.payload) as TrainingPayload;
  const { trainingId } = payload;
  const training = await deps.trainings.byId(trainingId);
  if (!training) return;
  await setTrainingStatus(deps, trainingId, 'preparing');
  const snapshot = await deps.trainings.snapshot(training.snapshot_id);
  const workDir = ctx.workDir;
  const runDir = path.join(workDir, 'run');
  // A takeover continues from the last epoch the dead runner stored; with none stored it starts again.
  let resume = payload.resume === true || ctx.attempt > 1;
  if (resume && !(await restoreCheckpoint(deps, trainingId, runDir))) {
    if (payload.resume) return failTraining(deps, trainingId, failure('nothing_to_resume', 'the checkpoint is no longer stored'), { resumable: false });
    resume = false;
  }
  if (!resume) await dropCheckpoint(deps, trainingId);
  const imagesDir = path.join(workDir, 'images');
  await fs.promises.mkdir(imagesDir, { recursive: true });
  const manifestFile = path.join(workDir, 'dataset.json');
  await fs.promises.copyFile(await deps.blobs.localFile(snapshot.manifest_sha), manifestFile);
  const manifest = JSON.parse(await fs.promises.readFile(manifestFile, 'utf8')) as { images: { file_name: string }[] };
  for (const img of manifest.images) {
    try {
      // Links: blobs are immutable, so the engine reads the stored bytes without a copy.
      await linkBlob(deps, img.file_name.split('.')[0]!, path.join(imagesDir, img.file_name));
    } catch (e) {
      if (!(e instanceof BlobNotFound)) throw e;
      // A deleted image whose blob went with it: say which, rather than letting the engine report a missing file.
      return failTraining(deps, trainingId, `image ${img.file_name} of the snapshot is no longer stored`, { resumable: false });
    }
  }
  // `pretrained` is stored as a training id; the engine gets the path of a copy of its weights.
  let params: Record<string, unknown>;
  try {
    params = await engineParams(deps, job.owner_id, JSON.parse(training.parameters) as Record<string, unknown>, workDir, resume);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (resume) {
      // The checkpoint holds the weights a resume continues from: the starting point is no longer needed.
      const { pretrained: _gone, ...rest } = JSON.parse(training.parameters) as Record<string, unknown>;
      params = rest;
    } else {
      const why = e.key === 'pretrainedNotFound' ? 'is no longer one of your trained versions' : 'has no trained weights any more';
      return failTraining(deps, trainingId, failure('pretrained_missing', `the version to start from ${why}`), { resumable: false });
    }
  }
  // Fair use: the plan's wall-clock budget (or the user's shorter `time`); the engine stops at it with its best checkpoint.
  const planS = trainingBudgetS(deps.config.fairUse, params, job.priority);
  const budgetS = payload.maxSeconds !== undefined ? Math.max(1, Math.min(planS, payload.maxSeconds)) : planS;
  const spec = { task: training.task, data: 'dataset.json', images: 'images', out: 'run', params, max_seconds: budgetS, ...deviceSpec(deps) };
  await fs.promises.writeFile(path.join(workDir, 'job.json'), JSON.stringify(spec, null, 1));
  if (ctx.cancelled()) {
    await dropCheckpoint(deps, trainingId);
    return setTrainingStatus(deps, trainingId, 'cancelled');
  }

  let phase: TrainingPhase = 'preparing';
  let status: 'preparing' | 'training' = 'preparing';
  let error: string | null = null;
  let errorCode: string | null = null;
  const artifacts: Record<string, string> = {};
  const progress = (p: Partial<{ epoch: number; epochs: number; etaS: number | null; metrics: Record<string, unknown> }>) => ({
    phase,
    epoch: p.epoch ?? 0,
    epochs: p.epochs ?? 0,
    metrics: p.metrics ?? {},
    etaS: p.etaS ?? null,
  });
  let last = progress({});
  const onEvent = async (e: EngineEvent) => {
    if (e.event === 'phase' && (e.phase === 'training' || e.phase === 'validating' || e.phase === 'preparing')) {
      phase = e.phase;
      if (phase !== 'preparing' && status === 'preparing') {
        status = 'training';
        await setTrainingStatus(deps, trainingId, 'training');
      }
      await deps.trainings.update(trainingId, { phase });
      last = { ...last, phase, metrics: {} };
      deps.trainingEvents.publish(trainingId, { type: 'progress', data: last });
    } else if (e.event === 'epoch') {
      // Another runner owns the job now: its epochs are the ones kept.
      if (ctx.lost()) return;
      last = progress({ epoch: e.epoch, epochs: e.epochs, metrics: e.metrics, etaS: e.eta_s ?? null });
      await deps.trainings.addEpoch({ training_id: trainingId, epoch: e.epoch, epochs: e.epochs, metrics: JSON.stringify(e.metrics), eta_s: e.eta_s ?? null, created_at: deps.now() });
      await deps.trainings.update(trainingId, { epoch: e.epoch, epochs: e.epochs, eta_s: e.eta_s ?? null });
      await deps.jobs.update(job.id, { progress: JSON.stringify(last) });
      deps.trainingEvents.publish(trainingId, { type: 'progress', id: e.epoch, data: last });
      // The engine saved last.pt before it reported the epoch: store it, so any runner can go on from here. Recorded
      // after the epoch, so the history never has a gap: a resume from an older checkpoint reports the epochs after
      // it again (the last report wins), and every epoch before the latest recorded one is in the stored checkpoint.
      await saveCheckpoint(deps, trainingId, runDir).catch((err: unknown) => deps.log.error(err, `training ${trainingId}: checkpoint not stored`));
    } else if (e.event === 'artifact' && (e.kind === 'checkpoint' || e.kind === 'results')) {
      artifacts[e.kind === 'checkpoint' ? 'best' : 'results'] = await keep(deps, e.path);
    } else if (e.event === 'done') {
      // stopped_by 'time' (the engine's) with the budget it had: the plan's limit, not the epochs, ended the run.
      await deps.trainings.update(trainingId, { summary: JSON.stringify({ ...e.summary, time_limit_s: budgetS }) });
    } else if (e.event === 'error' && e.code !== 'cancelled') {
      error = e.message;
      errorCode = e.code;
    }
  };
  const args = ['train', '--spec', 'job.json', '--workdir', workDir, ...(resume ? ['--resume'] : [])];
  const log = (m: string) => deps.log.warn(`training ${trainingId}: ${m}`);
  const run = runEngine(trainCommand(deps), args, { cwd: workDir, env: engineEnv(deps.config.engine.pythonPath), onEvent, log });
  ctx.onStart(run);
  const code = await run.exited;
  // Another runner took the job over (this one was cut off from the queue): it records the outcome.
  if (ctx.lost()) return;
  if (Object.keys(artifacts).length > 0) await deps.trainings.update(trainingId, { artifacts: JSON.stringify(artifacts) });
  // The outputs are in the blob store by now: the checkpoint only served a resume.
  if (code === 0 && artifacts.best) {
    await dropCheckpoint(deps, trainingId);
    return setTrainingStatus(deps, trainingId, 'succeeded');
  }
  if (ctx.timedOut()) {
    // The engine overran its budget (a last epoch far slower than the others): keep its best epoch's weights.
    const best = path.join(runDir, 'best.pt');
    if (!artifacts.best && fs.existsSync(best)) {
      artifacts.best = await keep(deps, best);
      await deps.trainings.update(trainingId, { artifacts: JSON.stringify(artifacts) });
    }
    return failTraining(deps, trainingId, failure('timeLimit', `${Math.round(budgetS)} s`), { resumable: false });
  }
  if (ctx.cancelled()) {
    await dropCheckpoint(deps, trainingId);
    return setTrainingStatus(deps, trainingId, 'cancelled');
  }
  if (ctx.shuttingDown()) return failTraining(deps, trainingId, SHUTDOWN_REASON);
  const reason = error !== null ? failure(errorCode ?? 'engineExited', error) : code === null ? failure('processKilled') : failure('engineExited', `exit code ${code}: ${run.tail() || 'no output'}`);
  // A checkpoint of a finished run cannot continue (the engine says so): resuming it again would only fail again.
  return failTraining(deps, trainingId, reason, { resumable: errorCode !== 'nothing_to_resume' });
}
