import { parseTestSettings, TestSettingsDefaults, TtaTasks, type TestRunData, type TestRunListData, type TestSettings, type TestStartBody } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Image } from '../../db/images.js';
import type { Model } from '../../db/models.js';
import type { TestRunRow } from '../../db/test-runs.js';
import type { TrainingRow } from '../../db/trainings.js';
import type { User } from '../../db/users.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../deps.js';
import { storedSuggestion } from './suggest.js';
import { isTerminal, setTestStatus, STOPPED_REASON } from './state.js';
import { defaultTraining } from '../versions.js';
import { agentsRepo } from '../../db/agents.js';
import { isUniqueViolation } from '../../db/database.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function testView(r: TestRunRow): TestRunData {
  return {
    id: r.id,
    modelId: r.model_id,
    trainingId: r.training_id,
    version: `v${r.version}`,
    status: r.status,
    source: r.source,
    settings: parseTestSettings(r.settings),
    imageCount: r.image_count,
    done: r.done,
    summary: r.summary ? (JSON.parse(r.summary) as Record<string, unknown>) : null,
    tp: r.tp,
    fp: r.fp,
    fn: r.fn,
    error: r.error,
    startedAt: iso(r.created_at)!,
    endedAt: iso(r.ended_at),
  };
}

const hasWeights = async (deps: Deps, t: TrainingRow) => {
  const best = (JSON.parse(t.artifacts) as Record<string, string>).best;
  return best !== undefined && (await deps.blobs.exists(best));
};

/** The training to test: the one asked for, or the default version (else the latest succeeded one); 80066 unless it has weights. */
async function testableTraining(deps: Deps, model: Model, trainingId: number | undefined): Promise<TrainingRow> {
  if (trainingId !== undefined) {
    const t = await deps.trainings.find(model.id, trainingId);
    if (!t) fail('notFound');
    if (t.status !== 'succeeded' || !(await hasWeights(deps, t))) fail('noModelToTest');
    return t;
  }
  // The version the user chose as default wins over the latest (services/versions.ts).
  const t = await defaultTraining(deps, model, async (x) => x.status === 'succeeded' && (await hasWeights(deps, x)));
  if (!t) fail('noModelToTest');
  return t;
}

/** The test split, or the chosen images of this model (notFound names an id that is not one). */
async function testImages(deps: Deps, model: Model, body: TestStartBody): Promise<{ source: TestRunData['source']; images: Image[] }> {
  const source = body.source ?? (body.imageIds ? 'images' : 'testSplit');
  if (source === 'testSplit') return { source, images: await deps.images.all(model.id, 'test') };
  const ids = [...new Set(body.imageIds ?? [])];
  const images: Image[] = [];
  for (let i = 0; i < ids.length; i += 500) images.push(...(await deps.images.byIds(model.id, ids.slice(i, i + 500))));
  if (images.length < ids.length) fail('notFound');
  return { source, images: images.sort((a, b) => a.id - b.id) };
}

/** What every start checks first (SPEC §8): 9002 when the data changed since the training, one training or test at a time per model (40001, 40004). */
async function checkFree(deps: Deps, model: Model, training: TrainingRow): Promise<void> {
  if (model.data_version > training.data_version) fail('annotationChanged');
  if (await deps.trainings.active(model.id)) fail('ongoingTraining');
  if (await deps.testRuns.active(model.id)) fail('ongoingTesting');
}

/** 8005 without images, 40013 for test-time augmentation on a version whose task has none (TtaTasks). */
function checkRun(training: TrainingRow, images: Image[], settings: TestSettings): void {
  if (images.length === 0) fail('noImagesToTest');
  if (settings.tta !== 'off' && !TtaTasks.includes(training.task)) fail('ttaNotForTask');
}

/** The settings a start runs with: the version's suggested confidence (the agent's auto test) unless one is given. */
function settingsFor(training: TrainingRow, given: Partial<TestSettings> | undefined): TestSettings {
  const suggested = given?.conf === undefined ? storedSuggestion(training) : null;
  return { ...TestSettingsDefaults, ...(suggested ? { conf: suggested.f1.overall } : {}), ...given };
}

interface NewRun {
  training: TrainingRow;
  source: TestRunData['source'];
  images: Image[];
  settings: TestSettings;
  jobId: number;
}

/** The run's rows in the caller's transaction: the run and its images, bound to `jobId`; the model shows 'queued'. */
async function insertRun(deps: Deps, trx: Kysely<DB>, model: Model, r: NewRun): Promise<number> {
  const now = deps.now();
  const ids = r.images.map((i) => i.id);
  const id = await deps.testRuns.insert(
    trx,
    { model_id: model.id, training_id: r.training.id, job_id: r.jobId, status: 'queued', source: r.source, settings: JSON.stringify(r.settings), image_count: ids.length, summary: null, error: null, created_at: now, started_at: null, ended_at: null },
    ids,
  );
  await trx.updateTable('models').set({ test_id: id, test_status: 'queued', project_status: 'testing', updated_at: now }).where('id', '=', model.id).execute();
  for (let i = 0; i < ids.length; i += 500) {
    await trx.updateTable('images').set({ test_state: 'unprocessed' }).where('id', 'in', ids.slice(i, i + 500)).execute();
  }
  return id;
}

/** Runs `insert` and answers ongoingTesting when two starts raced past the check (the one-active-run index decides). */
async function racing<T>(insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (e) {
    if (isUniqueViolation(e)) fail('ongoingTesting');
    throw e;
  }
}

/**
 * Starts a test (SPEC §8): 80066 without a succeeded training with weights, then checkFree's and checkRun's refusals. Queues
 * a job at the account's priority; the model shows 'testing' and the images 'unprocessed' until it ends.
 * Without a confidence the version's suggested one applies (settingsFor).
 */
export async function startTest(deps: Deps, user: User, model: Model, body: TestStartBody): Promise<TestRunData> {
  // The agent tests its own versions (issue 35): a user's test meanwhile would take the model's one test slot from it.
  if (await agentsRepo(deps.db).active(model.id)) fail('ongoingAgent');
  const training = await testableTraining(deps, model, body.trainingId);
  await checkFree(deps, model, training);
  const { source, images } = await testImages(deps, model, body);
  const settings = settingsFor(training, body.settings);
  checkRun(training, images, settings);
  const runId = await racing(() =>
    deps.db.transaction().execute(async (trx) => {
      const job = { kind: 'test' as const, model_id: model.id, owner_id: user.id, priority: user.training_priority, state: 'queued' as const, payload: '{}', created_at: deps.now() };
      const jobId = await deps.jobs.insert(trx, job);
      const id = await insertRun(deps, trx, model, { training, source, images, settings, jobId });
      await deps.jobs.update(jobId, { payload: JSON.stringify({ testRunId: id }) }, trx);
      return id;
    }),
  );
  // The answer is what this call did (queued): read before the runner may take the job and move it on.
  const queued = await getTest(deps, model, runId);
  deps.queue.kick();
  return queued;
}

/**
 * A test run inside another job (the agent's auto test): the same checks and bookkeeping as startTest, but no job
 * is queued; the caller runs runner/test-job.ts runTestJob with a job whose payload is {testRunId}. The images
 * must be the model's (notFound otherwise); `settings` are complete (no suggestion applies).
 */
export async function insertTestRun(deps: Deps, model: Model, training: TrainingRow, opts: { imageIds: number[]; settings: TestSettings }, jobId: number): Promise<number> {
  if (training.model_id !== model.id || training.status !== 'succeeded' || !(await hasWeights(deps, training))) fail('noModelToTest');
  await checkFree(deps, model, training);
  const { images } = await testImages(deps, model, { source: 'images', imageIds: opts.imageIds });
  const settings = { ...TestSettingsDefaults, ...opts.settings };
  checkRun(training, images, settings);
  return racing(() => deps.db.transaction().execute((trx) => insertRun(deps, trx, model, { training, source: 'images', images, settings, jobId })));
}

async function findTest(deps: Deps, model: Model, testId: number): Promise<TestRunRow> {
  const r = await deps.testRuns.find(model.id, testId);
  if (!r) fail('notFound');
  return r;
}

export async function getTest(deps: Deps, model: Model, testId: number): Promise<TestRunData> {
  return testView(await findTest(deps, model, testId));
}

export async function listTests(deps: Deps, model: Model): Promise<TestRunListData> {
  const items = (await deps.testRuns.list(model.id)).map(testView);
  return { items, total: items.length };
}

/**
 * Stop (SPEC §4: stopping a test makes it fail). A queued job fails at once; a running one gets SIGTERM
 * here, or through cancel_requested when another process runs it, and its job records the failure.
 */
export async function stopTest(deps: Deps, model: Model, testId: number): Promise<TestRunData> {
  const r = await findTest(deps, model, testId);
  if (isTerminal(r.status) || r.job_id === null) fail('testNotActive');
  // The agent's auto test runs inside the agent's job: stopping the agent stops it.
  if ((await deps.jobs.find(r.job_id))?.kind !== 'test') fail('ongoingAgent');
  await deps.jobs.update(r.job_id, { cancel_requested: 1 });
  // Only what is still queued is failed here; a job claimed meanwhile is the runner's to end.
  const res = await deps.db.updateTable('jobs').set({ state: 'failed', finished_at: deps.now() }).where('id', '=', r.job_id).where('state', '=', 'queued').executeTakeFirst();
  if (Number(res.numUpdatedRows) === 1) await setTestStatus(deps, r.id, 'failed', STOPPED_REASON);
  else deps.queue.cancel(r.job_id);
  return getTest(deps, model, testId);
}
