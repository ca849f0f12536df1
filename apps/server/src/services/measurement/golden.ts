import fs from 'node:fs';
import path from 'node:path';
import { failure, proposeTolerances, type GoldenBody, type GoldenData, type GoldenJobData, type ObjectMeasure } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Job } from '../../db/jobs.js';
import type { Model } from '../../db/models.js';
import type { User } from '../../db/users.js';
import { engineEnv, runEngine } from '../../runner/engine.js';
import type { JobContext } from '../../runner/training-job.js';
import type { Deps } from '../deps.js';
import { cocoManifest } from '../training/snapshot.js';
import { assertMeasureModel, measurementSettings } from './settings.js';
import { isUniqueViolation } from '../../db/database.js';

/** One image of the engine's measurements.json (engine/README.md "Measurement"). */
interface MeasuredByEngine {
  image_id: number;
  objects: { category_id: number; measure: ObjectMeasure }[];
}

/** What a golden job measures: the labeled images chosen when it was queued, and the margin of the proposal. */
export interface GoldenPayload {
  imageIds: number[];
  marginPct: number;
}

async function labeledImages(deps: Deps, model: Model, ids: number[]) {
  const images = [];
  for (let i = 0; i < ids.length; i += 500) images.push(...(await deps.images.byIds(model.id, ids.slice(i, i + 500))));
  return images.filter((i) => i.labeled === 1);
}

function view(job: Job): GoldenJobData {
  return {
    jobId: job.id,
    status: job.state,
    result: job.state === 'succeeded' && job.result ? (JSON.parse(job.result) as GoldenData) : null,
    error: job.state === 'failed' ? job.error : null,
  };
}

/**
 * Golden samples (issue 30 item 9): measuring is a job of the one job system, never work inside the request.
 * The request checks what it can at once (a MEASURE model, labeled images of it), queues the job under the
 * account's fair-use limit (one golden job per model at a time) and answers its id; GET goldenJob polls it.
 */
export async function queueGolden(deps: Deps, user: User, model: Model, body: GoldenBody): Promise<GoldenJobData> {
  assertMeasureModel(model);
  const labeled = await labeledImages(deps, model, [...new Set(body.imageIds)]);
  if (labeled.length === 0) fail('noLabeledImages');
  const payload: GoldenPayload = { imageIds: labeled.map((i) => i.id), marginPct: body.marginPct };
  let jobId: number;
  try {
    jobId = await deps.db.transaction().execute((trx) =>
      deps.jobs.insert(trx, {
        kind: 'golden',
        model_id: model.id,
        owner_id: user.id,
        priority: user.training_priority,
        state: 'queued',
        payload: JSON.stringify(payload),
        created_at: deps.now(),
      }),
    );
  } catch (e) {
    // The one-active-job-per-kind index: this model's golden samples are being measured already.
    if (isUniqueViolation(e)) fail('goldenInProgress');
    throw e;
  }
  // The answer is what this call did (queued): read before the runner may take the job and move it on.
  const queued = view((await deps.jobs.find(jobId))!);
  deps.queue.kick();
  return queued;
}

export async function goldenJob(deps: Deps, model: Model, jobId: number): Promise<GoldenJobData> {
  const job = await deps.jobs.find(jobId);
  if (!job || job.kind !== 'golden' || job.model_id !== model.id) fail('notFound');
  return view(job);
}

/** Ends a golden job (it has no other subject than its row); a job already ended keeps its state. */
export async function finishGolden(deps: Deps, jobId: number, end: { result: GoldenData } | { error: string }): Promise<void> {
  const patch = 'result' in end ? { state: 'succeeded' as const, result: JSON.stringify(end.result) } : { state: 'failed' as const, error: end.error };
  await deps.db
    .updateTable('jobs')
    .set({ ...patch, finished_at: deps.now() })
    .where('id', '=', jobId)
    .where('state', 'in', ['queued', 'running'])
    .execute();
}

/**
 * The job: the engine's `measure` without a model measures the current labels (polygons, rotated boxes,
 * boxes) of the chosen images, by the same definitions it measures predictions with, in mm when the model is
 * calibrated. From them each label gets proposed ranges (contracts' proposeTolerances). Nothing is saved: the
 * user reviews the proposal and saves it as the tolerances. Runs in the runner's work folder, under its time
 * limit (config.fairUse.goldenTimeoutS).
 */
export async function runGoldenJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const { imageIds, marginPct } = JSON.parse(job.payload) as GoldenPayload;
  const model = await deps.db.selectFrom('models').selectAll().where('id', '=', job.model_id).executeTakeFirst();
  if (!model) return finishGolden(deps, job.id, { error: failure('imagesMissing') });
  const labeled = await labeledImages(deps, model as Model, imageIds);
  // Deleted or unlabeled since the request.
  if (labeled.length === 0) return finishGolden(deps, job.id, { error: failure('imagesMissing') });
  const labels = await deps.labels.list(model.id);
  const categories = labels.map((l, i) => ({ id: i + 1, name: l.name, labelId: l.id }));
  const annotations = await deps.annotations.current(labeled.map((i) => i.id));
  const { manifest } = cocoManifest(labeled, annotations, categories);
  const { mmPerPx } = await measurementSettings(deps, model.id);

  await fs.promises.writeFile(path.join(ctx.workDir, 'golden.json'), JSON.stringify(manifest));
  const args = ['measure', '--data', 'golden.json', '--out', 'measurements.json', ...(mmPerPx !== null ? ['--mm-per-px', String(mmPerPx)] : [])];
  let error: string | null = null;
  const engine = runEngine(deps.config.engine.command, args, {
    cwd: ctx.workDir,
    env: engineEnv(deps.config.engine.pythonPath),
    onEvent: async (e) => {
      if (e.event === 'error' && e.code !== 'cancelled') error = failure(e.code, e.message);
    },
    log: (m) => deps.log.warn(`golden job ${job.id}: ${m}`),
  });
  ctx.onStart(engine);
  const code = await engine.exited;
  // Another runner took the job over: it records the outcome.
  if (ctx.lost()) return;
  if (ctx.timedOut()) return finishGolden(deps, job.id, { error: failure('timeLimit', `${deps.config.fairUse.goldenTimeoutS} s`) });
  if (ctx.cancelled() || ctx.shuttingDown()) return finishGolden(deps, job.id, { error: failure('stopped') });
  if (code !== 0) {
    return finishGolden(deps, job.id, { error: error ?? (code === null ? failure('processKilled') : failure('engineExited', `exit code ${code}: ${engine.tail() || 'no output'}`)) });
  }
  const measured = JSON.parse(await fs.promises.readFile(path.join(ctx.workDir, 'measurements.json'), 'utf8')) as { images: MeasuredByEngine[] };
  const labelOf = new Map(categories.map((c) => [c.id, c.labelId]));
  const samples = measured.images.map((img) => ({
    objects: img.objects.flatMap((o) => {
      const labelId = labelOf.get(o.category_id);
      return labelId === undefined ? [] : [{ labelId, values: o.measure }];
    }),
  }));
  const unit = mmPerPx !== null ? 'mm' : 'px';
  const { stats, proposal } = proposeTolerances(samples, labels.map((l) => l.id), marginPct, unit);
  const result: GoldenData = { images: samples.length, objects: samples.reduce((n, s) => n + s.objects.length, 0), unit, stats, proposal };
  return finishGolden(deps, job.id, { result });
}
