import fs from 'node:fs';
import path from 'node:path';
import { failure, type TrainingPhase } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import type { Deps } from '../services/deps.js';
import { AppError } from '../errors.js';
import { engineParams } from '../services/training/pretrained.js';
import { failTraining } from '../services/training/resume.js';
import { setTrainingStatus } from '../services/training/state.js';
import { removeTrainingDir, trainingDir } from '../services/training/workdir.js';
import { keep } from './artifacts.js';
import { engineEnv, runEngine, type EngineEvent, type EngineRun } from './engine.js';
import { trainingBudgetS } from './fair-use.js';

/** Why a training ends failed when the server stops or dies under it; the user starts it again. */
export const SHUTDOWN_REASON = failure('serverStoppedTraining');

export interface TrainingPayload {
  trainingId: number;
  /** Continue from the checkpoint a failed run left in the training's folder (`train --resume`). */
  resume?: boolean;
}

/** What the runner hands a job: where to work and how to learn that the user asked it to stop. */
export interface JobContext {
  workDir: string;
  /** The engine process, once started, so stop can SIGTERM it. */
  onStart(run: EngineRun): void;
  cancelled(): boolean;
  shuttingDown(): boolean;
  /** Stopped by the runner because the job ran past its time limit (JobHandler.timeoutS). */
  timedOut(): boolean;
}

/**
 * Materialises the training's snapshot (manifest + image blobs linked by hash) in the training's folder
 * (workdir.ts), runs `train --spec job.json --workdir DIR [--resume]`, and turns the engine's events into the
 * training's phase, epochs, summary and artifacts. The final state: succeeded (exit 0), cancelled (exit 130
 * after a stop), else failed with the engine's own message, resumable when an epoch checkpoint is left.
 */
export async function runTrainingJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const { trainingId, resume = false } = JSON.parse(job.payload) as TrainingPayload;
  const training = await deps.trainings.byId(trainingId);
  if (!training) return;
  await setTrainingStatus(deps, trainingId, 'preparing');
  const snapshot = await deps.trainings.snapshot(training.snapshot_id);
  const workDir = trainingDir(deps, trainingId);
  // A fresh start never inherits a checkpoint; a resume keeps RUN/ and lays the inputs out again.
  if (!resume) await removeTrainingDir(deps, trainingId);
  const imagesDir = path.join(workDir, 'images');
  await fs.promises.rm(imagesDir, { recursive: true, force: true });
  await fs.promises.mkdir(imagesDir, { recursive: true });
  const manifestFile = path.join(workDir, 'dataset.json');
  await fs.promises.copyFile(deps.blobs.pathOf(snapshot.manifest_sha), manifestFile);
  const manifest = JSON.parse(await fs.promises.readFile(manifestFile, 'utf8')) as { images: { file_name: string }[] };
  for (const img of manifest.images) {
    const blob = deps.blobs.pathOf(img.file_name.split('.')[0]!);
    // A deleted image whose blob went with it: say which, rather than letting the engine report a missing file.
    if (!fs.existsSync(blob)) return failTraining(deps, trainingId, `image ${img.file_name} of the snapshot is no longer stored`, { resumable: false });
    // Symlinks: blobs are immutable, so the engine reads the stored bytes without a copy.
    await fs.promises.symlink(blob, path.join(imagesDir, img.file_name));
  }
  // `pretrained` is stored as a training id; the engine gets the path of the server's own copy of its weights.
  let params: Record<string, unknown>;
  try {
    params = await engineParams(deps, job.owner_id, JSON.parse(training.parameters) as Record<string, unknown>, workDir, resume);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const why = e.key === 'pretrainedNotFound' ? 'is no longer one of your trained versions' : 'has no trained weights any more';
    return failTraining(deps, trainingId, failure('pretrained_missing', `the version to start from ${why}`), { resumable: false });
  }
  // Fair use: the plan's wall-clock budget (or the user's shorter `time`); the engine stops at it with its best checkpoint.
  const budgetS = trainingBudgetS(deps.config.fairUse, params, job.priority);
  const spec = { task: training.task, data: 'dataset.json', images: 'images', out: 'run', params, max_seconds: budgetS };
  await fs.promises.writeFile(path.join(workDir, 'job.json'), JSON.stringify(spec, null, 1));
  if (ctx.cancelled()) {
    await removeTrainingDir(deps, trainingId);
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
      last = progress({ epoch: e.epoch, epochs: e.epochs, metrics: e.metrics, etaS: e.eta_s ?? null });
      await deps.trainings.addEpoch({ training_id: trainingId, epoch: e.epoch, epochs: e.epochs, metrics: JSON.stringify(e.metrics), eta_s: e.eta_s ?? null, created_at: deps.now() });
      await deps.trainings.update(trainingId, { epoch: e.epoch, epochs: e.epochs, eta_s: e.eta_s ?? null });
      await deps.jobs.update(job.id, { progress: JSON.stringify(last) });
      deps.trainingEvents.publish(trainingId, { type: 'progress', id: e.epoch, data: last });
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
  const run = runEngine(deps.config.engine.command, args, { cwd: workDir, env: engineEnv(deps.config.engine.pythonPath), onEvent, log });
  ctx.onStart(run);
  const code = await run.exited;
  if (Object.keys(artifacts).length > 0) await deps.trainings.update(trainingId, { artifacts: JSON.stringify(artifacts) });
  // The outputs are in the blob store by now: the folder only served a resume.
  if (code === 0 && artifacts.best) {
    await removeTrainingDir(deps, trainingId);
    return setTrainingStatus(deps, trainingId, 'succeeded');
  }
  if (ctx.timedOut()) {
    // The engine overran its budget (a last epoch far slower than the others): keep its best epoch's weights.
    const best = path.join(workDir, 'run', 'best.pt');
    if (!artifacts.best && fs.existsSync(best)) {
      artifacts.best = await keep(deps, best);
      await deps.trainings.update(trainingId, { artifacts: JSON.stringify(artifacts) });
    }
    return failTraining(deps, trainingId, failure('timeLimit', `${Math.round(budgetS)} s`), { resumable: false });
  }
  if (ctx.cancelled()) {
    await removeTrainingDir(deps, trainingId);
    return setTrainingStatus(deps, trainingId, 'cancelled');
  }
  if (ctx.shuttingDown()) return failTraining(deps, trainingId, SHUTDOWN_REASON);
  const reason = error !== null ? failure(errorCode ?? 'engineExited', error) : code === null ? failure('processKilled') : failure('engineExited', `exit code ${code}: ${run.tail() || 'no output'}`);
  // A checkpoint of a finished run cannot continue (the engine says so): resuming it again would only fail again.
  return failTraining(deps, trainingId, reason, { resumable: errorCode !== 'nothing_to_resume' });
}
