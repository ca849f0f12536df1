import { failure, type AgentWorkPhase } from '@loupe/contracts';
import type { Job } from '../../db/jobs.js';
import { agentsRepo } from '../../db/agents.js';
import type { JobContext } from '../../runner/training-job.js';
import { failTraining } from '../training/resume.js';
import { setTestStatus, TEST_SHUTDOWN_REASON, isTerminal } from '../testing/state.js';
import type { Deps } from '../deps.js';
import { failureText } from '../../i18n.js';
import { publicDetail } from '../../runner/engine.js';
import { initialise } from './initialise.js';
import { AgentFailure, AgentHalt, checkHalt, secondsLeft, type AgentJob } from './job.js';
import { retrain, testMain, trainMain } from './phases.js';
import { agentRecorder, type AgentRecorder } from './record.js';
import { tune } from './tune.js';
import { isTerminalPhase, settingsOf, stateOf } from './view.js';

export interface AgentPayload {
  agentId: number;
}

/** Why an agent ends failed when the server stops under it. */
export const AGENT_SHUTDOWN_REASON = failure('serverStoppedAgent');

const PHASES: Record<AgentWorkPhase, (a: AgentJob, seconds: number) => Promise<void>> = {
  initialising: (a) => initialise(a),
  tuning: tune,
  training: trainMain,
  testing: (a) => testMain(a),
  retraining: retrain,
};

/**
 * Runs an agent (SPEC §4 agent phases) inside its job: each working phase in order with its share of what the
 * budget leaves, recording after each what it decided, so a takeover (attempt > 1) skips the finished phases and
 * resumes the one it was in (a training from its checkpoint, tuning with the time left). Cancel in any phase ends
 * it cancelled, the server stopping ends it failed (serverStoppedAgent), a lost lease records nothing.
 */
export async function runAgentJob(deps: Deps, job: Job, ctx: JobContext): Promise<void> {
  const { agentId } = JSON.parse(job.payload) as AgentPayload;
  const repo = agentsRepo(deps.db);
  const row = await repo.byId(agentId);
  if (!row || isTerminalPhase(row.phase)) return;
  const model = await deps.models.find(row.owner_id, row.model_id);
  if (!model) return;
  const rec = agentRecorder(deps, agentId);
  const now = deps.now();
  if (row.started_at === null) await repo.update(agentId, { started_at: now, deadline_at: now + row.budget_s * 1000 });
  const deadline = row.deadline_at === null ? now + row.budget_s * 1000 : Number(row.deadline_at);
  const a: AgentJob = { deps, job, ctx, rec, model, settings: settingsOf(row), deadline };
  try {
    if (ctx.attempt > 1 || row.started_at !== null) await resumeAfterRestart(a);
    for (const phase of ['initialising', 'tuning', 'training', 'testing', 'retraining'] as const) {
      if ((await rec.state()).done.includes(phase)) continue;
      checkHalt(ctx);
      const seconds = await rec.enter(phase);
      await PHASES[phase](a, seconds);
      const s = await rec.state();
      await rec.saveState({ done: [...s.done, phase] });
    }
    await rec.log('complete', { seconds: Math.round((deps.now() - Number((await rec.row()).started_at)) / 1000) }, 'complete');
    await rec.end('complete');
    await deps.jobs.update(job.id, { state: 'succeeded', finished_at: deps.now() });
  } catch (e) {
    await endAfter(a, e);
  }
}

/** The end a stop or an error gives the run. */
async function endAfter(a: AgentJob, e: unknown): Promise<void> {
  const { deps, rec, job } = a;
  if (e instanceof AgentHalt && e.why === 'lost') return;
  let reason: string;
  if (e instanceof AgentHalt && e.why === 'cancelled') {
    await rec.log('cancelled', {}, 'cancelled');
    await rec.end('cancelled');
    await deps.jobs.update(job.id, { state: 'cancelled', finished_at: deps.now() });
    return;
  }
  if (e instanceof AgentHalt) reason = e.why === 'shutdown' ? AGENT_SHUTDOWN_REASON : failure('timeLimit', `${(await rec.row()).budget_s} s`);
  else if (e instanceof AgentFailure) reason = e.reason;
  else {
    deps.log.error(e, `agent ${rec.id} failed`);
    // The user reads the reason: one line, no server paths (the log above has the whole error).
    reason = failure('engineExited', `the agent failed: ${publicDetail((e as Error).message)}`);
  }
  await failAgent(deps, rec, reason);
}

/** Marks the run failed with `reason` (and its job), logging it in the run's language. */
export async function failAgent(deps: Deps, rec: AgentRecorder, reason: string): Promise<void> {
  const row = await rec.row();
  if (isTerminalPhase(row.phase)) return;
  await rec.log('failed', { reason: failureText(settingsOf(row).language, reason) ?? reason }, 'failed');
  await rec.end('failed', reason);
  if (row.job_id !== null) {
    await deps.db.updateTable('jobs').set({ state: 'failed', finished_at: deps.now(), error: reason }).where('id', '=', row.job_id).where('state', 'in', ['queued', 'running']).execute();
  }
}

/**
 * A takeover: the budget's deadline stands (a run past it fails cleanly), the log says it resumed, and a test the
 * dead runner left running is failed (it is tested again); a training it left is resumed by runTrainingJob.
 */
async function resumeAfterRestart(a: AgentJob): Promise<void> {
  const { deps, rec } = a;
  if (secondsLeft(a) <= 0) throw new AgentFailure(failure('timeLimit', `${(await rec.row()).budget_s} s`));
  await rec.log('resumed', { seconds: Math.round(secondsLeft(a)) });
  const s = stateOf(await rec.row());
  for (const id of s.testRunIds) {
    const r = await deps.testRuns.byId(id);
    if (r && !isTerminal(r.status)) await setTestStatus(deps, id, 'failed', TEST_SHUTDOWN_REASON);
  }
}

/** The agent job's handler pieces the runner calls when the job cannot record its own end. */
export async function agentJobFailed(deps: Deps, job: Job, reason: string): Promise<void> {
  const { agentId } = JSON.parse(job.payload) as AgentPayload;
  const rec = agentRecorder(deps, agentId);
  const row = await agentsRepo(deps.db).byId(agentId);
  if (!row) return;
  // The run's training or test, if one was running, ends with it (a training stays resumable as a failed one).
  for (const id of stateOf(row).trainingIds) {
    const t = await deps.trainings.byId(id);
    if (t && ['queued', 'preparing', 'training'].includes(t.status)) await failTraining(deps, id, reason);
  }
  for (const id of stateOf(row).testRunIds) {
    const r = await deps.testRuns.byId(id);
    if (r && !isTerminal(r.status)) await setTestStatus(deps, id, 'failed', reason);
  }
  await failAgent(deps, rec, reason);
}
