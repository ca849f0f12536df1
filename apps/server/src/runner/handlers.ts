import { failure } from '@loupe/contracts';
import type { Job, JobKind } from '../db/jobs.js';
import type { Deps } from '../services/deps.js';
import { packsRepo } from '../db/packs.js';
import { PACK_SHUTDOWN_REASON, setPackStatus } from '../services/delivery/packs.js';
import { failTraining } from '../services/training/resume.js';
import { setTrainingStatus } from '../services/training/state.js';
import { runGoldenJob } from '../services/measurement/golden.js';
import { setTestStatus, TEST_SHUTDOWN_REASON } from '../services/testing/state.js';
import { runExportJob } from './export-job.js';
import { runTestJob } from './test-job.js';
import type { JobContext } from './training-job.js';
import { runTrainingJob, SHUTDOWN_REASON } from './training-job.js';
import { analysisHandler } from './analysis-job.js';
import { agentHandler } from './agent-job.js';
import { trainingBudgetS, trainingGraceS } from './fair-use.js';

/** How the runner runs one kind of job and records its end when the job cannot (crash, dead server). */
export interface JobHandler {
  run(deps: Deps, job: Job, ctx: JobContext): Promise<void>;
  /** Marks the job's subject (training, test run, pack) failed with `reason`. */
  fail(deps: Deps, job: Job, reason: string): Promise<void>;
  /** Seconds the job may hold its slot before the runner stops it (ctx.timedOut); none when absent or null. */
  timeoutS?(deps: Deps, job: Job): Promise<number | null>;
  /** Its runner died and the job waits for another (dispatch.ts): the subject shows it is queued again. */
  requeued?(deps: Deps, job: Job): Promise<void>;
}

const training: JobHandler = {
  run: runTrainingJob,
  // The engine stops itself at the budget; the runner only steps in when it overruns by the grace.
  async timeoutS(deps, job) {
    const t = await deps.trainings.byJob(job.id);
    if (!t) return null;
    const budget = trainingBudgetS(deps.config.fairUse, JSON.parse(t.parameters) as Record<string, unknown>, job.priority);
    return budget + trainingGraceS(budget);
  },
  async fail(deps, job, reason) {
    const t = await deps.trainings.byJob(job.id);
    // A checkpoint in the blob store keeps it resumable, also after a dead runner.
    if (t) await failTraining(deps, t.id, reason);
  },
  async requeued(deps, job) {
    const t = await deps.trainings.byJob(job.id);
    // The next runner resumes from the last epoch's checkpoint (training-job.ts): the epochs so far stay.
    if (t) await setTrainingStatus(deps, t.id, 'queued');
  },
};

const test: JobHandler = {
  run: runTestJob,
  async fail(deps, job, reason) {
    const r = await deps.testRuns.byJob(job.id);
    // The runner's shutdown reason speaks of a training.
    if (r) await setTestStatus(deps, r.id, 'failed', reason === SHUTDOWN_REASON ? TEST_SHUTDOWN_REASON : reason);
  },
};

const exportPack: JobHandler = {
  run: runExportJob,
  async fail(deps, job, reason) {
    const p = await packsRepo(deps.db).byJob(job.id);
    if (p) await setPackStatus(deps, p.id, 'failed', { error: reason === SHUTDOWN_REASON ? PACK_SHUTDOWN_REASON : reason });
  },
};

const golden: JobHandler = {
  run: runGoldenJob,
  // Also when the server stops under it (the training's shutdown reason): a golden job says 'stopped'.
  async fail(deps, job, reason) {
    const error = reason === SHUTDOWN_REASON ? failure('stopped') : reason;
    await deps.db.updateTable('jobs').set({ state: 'failed', error, finished_at: deps.now() }).where('id', '=', job.id).where('state', '!=', 'succeeded').execute();
  },
  timeoutS: async (deps) => deps.config.fairUse.goldenTimeoutS,
};

/** One handler per job kind; the runner dispatches on jobs.kind. */
export const JOB_HANDLERS: Partial<Record<JobKind, JobHandler>> = {
  training,
  test,
  export: exportPack,
  golden,
  analysis: analysisHandler,
  agent: agentHandler,
};
