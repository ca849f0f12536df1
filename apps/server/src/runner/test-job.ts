import fs from 'node:fs';
import path from 'node:path';
import { failure, parseTestSettings } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import type { Image } from '../db/images.js';
import type { TestRunRow } from '../db/test-runs.js';
import type { Deps } from '../services/deps.js';
import { cocoManifest, labeledClassSets, type CocoCategory, type CocoManifest } from '../services/training/snapshot.js';
import { publishProgress, setTestStatus, STOPPED_REASON, TEST_SHUTDOWN_REASON } from '../services/testing/state.js';
import { recordResults, type EngineResult, type PreparedTest } from '../services/testing/record.js';
import { deviceSpec, engineEnv, runEngine, type EngineEvent } from './engine.js';
import { linkBlob } from './artifacts.js';
import { BlobNotFound } from '../adapters/blob-store.js';
import type { JobContext } from './training-job.js';

export interface TestPayload {
  testRunId: number;
}

/**
 * Lays out what the engine reads in the work folder: the run's images linked by blob hash, test.json (COCO
 * with their current ground truth, in the training's categories) and the training's weights. Answers the
 * reason instead when something the run needs is gone.
 */
async function prepare(deps: Deps, run: TestRunRow, workDir: string): Promise<PreparedTest | { error: string }> {
  const training = await deps.trainings.byId(run.training_id);
  const best = training ? (JSON.parse(training.artifacts) as Record<string, string>).best : undefined;
  if (!training || !best || !(await deps.blobs.exists(best))) return { error: failure('weightsMissing', `v${run.version}`) };
  const snapshot = await deps.trainings.snapshot(training.snapshot_id);
  const trained = JSON.parse((await deps.blobs.readBuffer(snapshot.manifest_sha)).toString('utf8')) as CocoManifest;
  // A label's name is how the weights know it; renaming or deleting one raises data_version, so they still match.
  const labelByName = new Map((await deps.labels.list(run.model_id)).map((l) => [l.name, l.id]));
  const categories: CocoCategory[] = [];
  for (const c of trained.categories) {
    const labelId = labelByName.get(c.name);
    if (labelId === undefined) return { error: failure('labelRemoved', `"${c.name}" (v${run.version})`) };
    categories.push({ id: c.id, name: c.name, labelId });
  }
  const ids = await deps.testRuns.imageIds(run.id);
  const images: Image[] = [];
  for (let i = 0; i < ids.length; i += 500) images.push(...(await deps.images.byIds(run.model_id, ids.slice(i, i + 500))));
  if (images.length === 0) return { error: failure('imagesMissing') };
  const classify = training.task === 'classify';
  // A classification's ground truth is each image's class; the other tasks' the images' shapes.
  const annotations = classify ? [] : await deps.annotations.current(images.map((i) => i.id));
  // A multi-label training (its manifest's images carry category_ids) compares class sets.
  const classSets = classify && trained.images.some((i) => i.category_ids) ? await labeledClassSets(deps, run.model_id, images) : undefined;
  const { manifest, blobs } = cocoManifest(images, annotations, categories, { classes: classify, classSets });

  const imagesDir = path.join(workDir, 'images');
  await fs.promises.mkdir(imagesDir, { recursive: true });
  for (const [file, sha] of Object.entries(blobs)) {
    try {
      // Blobs never change: the engine reads the stored bytes through links, nothing is copied.
      await linkBlob(deps, sha, path.join(imagesDir, file));
    } catch (e) {
      if (!(e instanceof BlobNotFound)) throw e;
      return { error: failure('imagesMissing', images.find((i) => i.sha256 === sha)?.name ?? file) };
    }
  }
  await linkBlob(deps, best, path.join(workDir, 'best.pt'));
  await fs.promises.writeFile(path.join(workDir, 'test.json'), JSON.stringify(manifest));
  const settings = parseTestSettings(run.settings);
  const spec = { model: 'best.pt', data: 'test.json', images: 'images', out: 'predictions.json', test: settings, ...deviceSpec(deps) };
  await fs.promises.writeFile(path.join(workDir, 'job.json'), JSON.stringify(spec, null, 1));
  return { images, annotations, categories, task: training.task, ...(classSets ? { classSets } : {}) };
}

/**
 * Runs `test --spec job.json --workdir DIR` on the run's images and records what the engine found: the
 * detections, instances or classes, per-image matches against the ground truth and the engine's summary. Ends succeeded (exit 0
 * with predictions) or failed: stopped by the user (SPEC §4), the server stopping, or the engine's message.
 * The run is the payload's: a job of another kind (the agent's) may run several, one after another.
 */
export async function runTestJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const { testRunId } = JSON.parse(job.payload) as TestPayload;
  const run = await deps.testRuns.byId(testRunId);
  if (!run) return;
  // The agent's auto test runs in the agent's job (services/testing/tests.ts insertTestRun): its progress is the agent's.
  const ownJob = job.kind === 'test';
  await setTestStatus(deps, run.id, 'preparing');
  const prepared = await prepare(deps, run, ctx.workDir);
  if ('error' in prepared) return setTestStatus(deps, run.id, 'failed', prepared.error);
  if (ctx.cancelled()) return setTestStatus(deps, run.id, 'failed', STOPPED_REASON);

  let results: string | null = null;
  let summary: Record<string, unknown> | null = null;
  let error: string | null = null;
  const onEvent = async (e: EngineEvent) => {
    if (e.event === 'phase' && e.phase === 'testing') {
      await setTestStatus(deps, run.id, 'testing');
      if (ownJob) await deps.jobs.update(job.id, { progress: JSON.stringify({ phase: 'testing', done: 0, total: prepared.images.length }) });
    } else if (e.event === 'progress' && e.done < e.total) {
      // The last image's progress waits for the results to be recorded (below), so done = total means readable.
      const progress = { phase: 'testing' as const, done: e.done, total: prepared.images.length };
      if (ownJob) await deps.jobs.update(job.id, { progress: JSON.stringify(progress) });
      publishProgress(deps, run.id, progress);
    } else if (e.event === 'artifact' && e.kind === 'predictions') {
      results = e.path;
    } else if (e.event === 'done') {
      summary = e.summary;
    } else if (e.event === 'error' && e.code !== 'cancelled') {
      error = failure(e.code, e.message);
    }
  };
  const engine = runEngine(deps.config.engine.command, ['test', '--spec', 'job.json', '--workdir', ctx.workDir], {
    cwd: ctx.workDir,
    env: engineEnv(deps.config.engine.pythonPath),
    onEvent,
    log: (m) => deps.log.warn(`test run ${run.id}: ${m}`),
  });
  ctx.onStart(engine);
  const code = await engine.exited;
  // Another runner took the job over: it records the outcome.
  if (ctx.lost()) return;
  if (ctx.cancelled()) return setTestStatus(deps, run.id, 'failed', STOPPED_REASON);
  if (ctx.shuttingDown()) return setTestStatus(deps, run.id, 'failed', TEST_SHUTDOWN_REASON);
  if (code === 0 && results) {
    const found = JSON.parse(await fs.promises.readFile(results, 'utf8')) as EngineResult[];
    await recordResults(deps, run, prepared, found, summary);
    publishProgress(deps, run.id, { phase: 'testing', done: prepared.images.length, total: prepared.images.length });
    return setTestStatus(deps, run.id, 'succeeded');
  }
  const reason = error ?? (code === null ? failure('processKilled') : failure('engineExited', `exit code ${code}: ${engine.tail() || 'no output'}`));
  return setTestStatus(deps, run.id, 'failed', reason);
}
