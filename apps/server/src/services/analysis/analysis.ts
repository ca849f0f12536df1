import fs from 'node:fs';
import path from 'node:path';
import { failure, type AnalysisStatus, type DatasetAnalysis } from '@loupe/contracts';
import { AppError } from '../../errors.js';
import { analysesRepo, type AnalysisRow } from '../../db/analyses.js';
import type { Model } from '../../db/models.js';
import { BlobNotFound } from '../../adapters/blob-store.js';
import { linkBlob } from '../../runner/artifacts.js';
import { deviceSpec, engineEnv, runEngine, type EngineEvent } from '../../runner/engine.js';
import type { JobContext } from '../../runner/training-job.js';
import type { Deps } from '../deps.js';
import { savedParams } from '../training/parameters.js';
import { taskOf } from '../training/trainings.js';
import { datasetVersion, type DatasetVersion } from './manifest.js';

/** The image size an analysis plans for when the caller names none: the model's saved one, else 640. */
export function defaultImgsz(model: Model): number {
  const imgsz = (savedParams(model) as { imgsz?: unknown }).imgsz;
  return typeof imgsz === 'number' && Number.isInteger(imgsz) && imgsz > 0 ? imgsz : 640;
}

const JOB_STATE: Partial<Record<AnalysisStatus, 'succeeded' | 'failed' | 'cancelled'>> = { completed: 'succeeded', failed: 'failed', stopped: 'cancelled' };

/**
 * Moves an analysis to `status`. A terminal one records its end, and ends its job too when the job is the
 * analysis's own (an agent's analysis shares the agent's job, which goes on).
 */
export async function setAnalysisStatus(deps: Deps, id: number, status: AnalysisStatus, extra: { result?: string; error?: string; endJob?: boolean } = {}): Promise<void> {
  const row = await analysesRepo(deps.db).byId(id);
  if (!row) return;
  const now = deps.now();
  const jobState = JOB_STATE[status];
  await deps.db.transaction().execute(async (trx) => {
    await analysesRepo(deps.db).update(
      id,
      { status, ...(jobState ? { finished_at: now } : {}), ...(extra.result !== undefined ? { result: extra.result } : {}), ...(extra.error !== undefined ? { error: extra.error } : {}) },
      trx,
    );
    if (jobState && extra.endJob && row.job_id !== null) {
      await deps.jobs.update(row.job_id, { state: jobState, finished_at: now, ...(extra.error ? { error: extra.error } : {}) }, trx);
    }
  });
}

/** The engine's analysis.json is only stored when it has the shape the pages read (its counts and findings). */
function parseResult(text: string): DatasetAnalysis | null {
  try {
    const r = JSON.parse(text) as Partial<DatasetAnalysis> | null;
    if (!r || typeof r !== 'object' || !r.counts || typeof r.counts !== 'object' || !Array.isArray(r.findings)) return null;
    return r as DatasetAnalysis;
  } catch {
    return null;
  }
}

/** What the job's context offers that an analysis needs: the agent runs one inside its own job. */
export type AnalysisContext = Pick<JobContext, 'workDir' | 'onStart' | 'cancelled'> & Partial<Pick<JobContext, 'lost' | 'shuttingDown' | 'timedOut'>>;

export type AnalysisOutcome = { result: DatasetAnalysis } | { failed: AppError } | { stopped: true } | { lost: true };

/** Links the images into the work folder and writes the manifest and job.json; answers the image a blob is missing of. */
async function layOut(deps: Deps, model: Model, row: AnalysisRow, version: DatasetVersion, workDir: string): Promise<string | null> {
  const imagesDir = path.join(workDir, 'images');
  await fs.promises.mkdir(imagesDir, { recursive: true });
  for (const [file, sha] of Object.entries(version.blobs)) {
    try {
      await linkBlob(deps, sha, path.join(imagesDir, file));
    } catch (e) {
      if (!(e instanceof BlobNotFound)) throw e;
      return version.images.find((i) => i.sha256 === sha)?.name ?? file;
    }
  }
  await fs.promises.writeFile(path.join(workDir, 'dataset.json'), version.json);
  const task = taskOf(model, version.manifest.annotations.some((a) => a.rbox));
  // `pretrained` names a version's weights, which an analysis does not read.
  const { pretrained: _unused, ...params } = savedParams(model) as Record<string, unknown>;
  const spec = { task, data: 'dataset.json', images: 'images', out: 'analysis.json', params, analyze: { imgsz: row.imgsz }, ...deviceSpec(deps) };
  await fs.promises.writeFile(path.join(workDir, 'job.json'), JSON.stringify(spec, null, 1));
  return null;
}

/** The engine's error as the §8 message: an unreadable image by the name the user gave it, anything else as detail. */
function engineFailure(version: DatasetVersion, code: string, message: string): { error: AppError; stored: string } {
  if (code === 'bad_image') {
    const file = message.split(':')[0]!.trim();
    const name = version.images.find((i) => `${i.sha256}.${i.kind}` === file)?.name ?? file;
    return { error: new AppError('imageResolutionFailed', { name }), stored: failure('bad_image', name) };
  }
  return { error: new AppError('datasetAnalysisFailed', { detail: message }), stored: failure(code, message) };
}

/**
 * Analyses the model's current data for the analysis row `row` in ctx.workDir: `analyze --spec job.json` on every
 * image, its analysis.json stored with the row (completed), or the row failed with the §8 reason, or stopped.
 * The row's manifest_sha becomes the data actually analysed. The analysis job and the agent both run this.
 */
export async function executeAnalysis(deps: Deps, model: Model, row: AnalysisRow, ctx: AnalysisContext, endJob: boolean): Promise<AnalysisOutcome> {
  const repo = analysesRepo(deps.db);
  const end = async (status: AnalysisStatus, extra: { result?: string; error?: string }) => setAnalysisStatus(deps, row.id, status, { ...extra, endJob });
  const failWith = async (error: AppError, stored: string): Promise<AnalysisOutcome> => {
    await end('failed', { error: stored });
    return { failed: error };
  };
  await setAnalysisStatus(deps, row.id, 'running');
  const version = await datasetVersion(deps, model);
  await repo.update(row.id, { manifest_sha: version.sha });
  if (version.images.length === 0) return failWith(new AppError('datasetAnalysisFailed', { detail: 'no images' }), failure('empty_dataset'));
  const missing = await layOut(deps, model, row, version, ctx.workDir);
  if (missing !== null) return failWith(new AppError('imageResolutionFailed', { name: missing }), failure('bad_image', missing));
  if (ctx.cancelled()) return end('stopped', { error: failure('stopped') }).then(() => ({ stopped: true }));

  let engineError: { error: AppError; stored: string } | null = null;
  const onEvent = async (e: EngineEvent) => {
    if (e.event === 'error' && e.code !== 'cancelled') engineError = engineFailure(version, e.code, e.message);
  };
  const engine = runEngine(deps.config.engine.command, ['analyze', '--spec', 'job.json', '--workdir', ctx.workDir], {
    cwd: ctx.workDir,
    env: engineEnv(deps.config.engine.pythonPath),
    onEvent,
    log: (m) => deps.log.warn(`analysis ${row.id}: ${m}`),
  });
  ctx.onStart(engine);
  const code = await engine.exited;
  // Another runner took the job over: it records the outcome.
  if (ctx.lost?.()) return { lost: true };
  if (ctx.cancelled() || ctx.shuttingDown?.()) return end('stopped', { error: failure('stopped') }).then(() => ({ stopped: true }));
  if (ctx.timedOut?.()) return failWith(new AppError('datasetAnalysisFailed', { detail: 'time limit' }), failure('timeLimit'));
  if (code === 0) {
    const text = await fs.promises.readFile(path.join(ctx.workDir, 'analysis.json'), 'utf8').catch(() => '');
    const result = parseResult(text);
    if (result) {
      await end('completed', { result: JSON.stringify(result) });
      return { result };
    }
    return failWith(new AppError('datasetAnalysisFailed', { detail: 'the engine wrote no readable analysis' }), failure('engineExited', 'no readable analysis.json'));
  }
  const known = engineError as { error: AppError; stored: string } | null;
  if (known) return failWith(known.error, known.stored);
  const detail = code === null ? 'the engine process was killed' : `exit code ${code}: ${engine.tail() || 'no output'}`;
  return failWith(new AppError('datasetAnalysisFailed', { detail }), code === null ? failure('processKilled') : failure('engineExited', detail));
}

/**
 * The agent's initialising phase (issue 35): analyses the model's data inside the agent's job (no job of its
 * own), or answers the completed analysis of the same data and image size. The row records job_id = the
 * agent's job. Throws datasetAnalysisFailed {detail} or imageResolutionFailed {name} when the engine fails, and
 * datasetAnalysisFailed {detail: 'stopped'} when the agent was cancelled meanwhile (the row then says stopped).
 */
export async function analyseForAgent(
  deps: Deps,
  model: Model,
  ownerId: number,
  opts: { imgsz: number; jobId: number; workDir: string; ctx: Pick<JobContext, 'onStart' | 'cancelled'> },
): Promise<{ id: number; result: DatasetAnalysis }> {
  const repo = analysesRepo(deps.db);
  const version = await datasetVersion(deps, model);
  const done = await repo.completed(model.id, version.sha, opts.imgsz);
  const stored = done?.result ? parseResult(done.result) : null;
  if (done && stored) return { id: done.id, result: stored };
  const id = await repo.insert(deps.db, {
    model_id: model.id,
    owner_id: ownerId,
    job_id: opts.jobId,
    manifest_sha: version.sha,
    imgsz: opts.imgsz,
    status: 'queued',
    result: null,
    error: null,
    created_at: deps.now(),
    finished_at: null,
  });
  await fs.promises.mkdir(opts.workDir, { recursive: true });
  const outcome = await executeAnalysis(deps, model, (await repo.byId(id))!, { workDir: opts.workDir, onStart: opts.ctx.onStart, cancelled: opts.ctx.cancelled }, false);
  if ('result' in outcome) return { id, result: outcome.result };
  if ('failed' in outcome) throw outcome.failed;
  throw new AppError('datasetAnalysisFailed', { detail: 'stopped' });
}
