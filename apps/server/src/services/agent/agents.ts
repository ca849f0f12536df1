import { TrainableTypes, type AgentRunData, type AgentRunDetailData, type AgentRunListData, type AgentStartBody, type Language } from '@loupe/contracts';
import { agentsRepo, type AgentRunRow } from '../../db/agents.js';
import type { Model } from '../../db/models.js';
import type { User } from '../../db/users.js';
import { fail } from '../../errors.js';
import { planBudgetS } from '../../runner/fair-use.js';
import type { Deps } from '../deps.js';
import { savedParams } from '../training/parameters.js';
import { freezeDataset } from '../training/snapshot.js';
import { agentRecorder } from './record.js';
import { agentView, isTerminalPhase, logOf, trialView, type AgentSettings } from './view.js';
import { isUniqueViolation } from '../../db/database.js';

/** Trials without gain that end tuning when nothing is saved (contracts training.ts `agent_early_stop`). */
const DEFAULT_EARLY_STOP = 5;
const DEFAULT_BUDGET_S = 3600;
const DEFAULT_RECALL = 0.95;

/** The saved `agent_early_stop` (savedParams reads a switch saved before issue 35 as 5 or 0). */
function savedEarlyStop(saved: Record<string, unknown>): number {
  const v = saved.agent_early_stop;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : DEFAULT_EARLY_STOP;
}

/** The budget: the body's, else the saved max training time, else an hour; never above the plan's training budget. */
function budgetOf(deps: Deps, user: User, body: AgentStartBody, saved: Record<string, unknown>): number {
  const hours = typeof saved.time === 'number' && saved.time > 0 ? saved.time : null;
  const budget = body.budgetS ?? (hours !== null ? Math.round(hours * 3600) : DEFAULT_BUDGET_S);
  const plan = planBudgetS(deps.config.fairUse, user.training_priority);
  if (budget > plan) fail('ceilingPlanHours', { field: 'budgetS', max: Math.floor(plan / 3600), value: Math.round((budget / 3600) * 10) / 10 });
  return budget;
}

/**
 * Starts the agent (SPEC §4): a trainable model, nothing else running on it, data that passes the training rules
 * now; then the run (phase initialising) and its job in one transaction. Every refusal comes before anything is
 * written; the log is written in `lang`.
 */
export async function startAgent(deps: Deps, user: User, model: Model, body: AgentStartBody, lang: Language): Promise<AgentRunData> {
  if (!(model.type in TrainableTypes)) fail('wrongModelType');
  const saved = savedParams(model) as Record<string, unknown>;
  const budgetS = budgetOf(deps, user, body, saved);
  const labels = await deps.labels.list(model.id);
  const ids = new Set(labels.map((l) => l.id));
  const foreign = (body.ngLabelIds ?? []).find((id) => !ids.has(id));
  if (foreign !== undefined) fail('validation', { field: 'ngLabelIds', reason: 'labelNotInModel' });
  const repo = agentsRepo(deps.db);
  if (await repo.active(model.id)) fail('ongoingAgent');
  if (await deps.trainings.active(model.id)) fail('ongoingTraining');
  if (await deps.testRuns.active(model.id)) fail('ongoingTesting');
  // The training rules (noLabeledImages, labelNeedsTrainValid, classesTooFew) refuse now, not minutes later.
  await freezeDataset(deps, model);
  const settings: AgentSettings = {
    recallTarget: body.recallTarget ?? DEFAULT_RECALL,
    ngLabelIds: body.ngLabelIds ? [...new Set(body.ngLabelIds)] : labels.map((l) => l.id),
    earlyStop: body.earlyStop ?? savedEarlyStop(saved),
    language: lang,
  };
  const now = deps.now();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      const jobId = await deps.jobs.insert(trx, { kind: 'agent', model_id: model.id, owner_id: user.id, priority: user.training_priority, state: 'queued', payload: '{}', created_at: now });
      const agentId = await repo.insert(trx, { model_id: model.id, owner_id: user.id, job_id: jobId, phase: 'initialising', budget_s: budgetS, settings: JSON.stringify(settings), created_at: now });
      await deps.jobs.update(jobId, { payload: JSON.stringify({ agentId }) }, trx);
      return agentId;
    });
  } catch (e) {
    // Two starts racing past the check: the one-active-job index decides.
    if (isUniqueViolation(e)) fail('ongoingAgent');
    throw e;
  }
  const queued = agentView((await repo.byId(id))!, deps.now());
  deps.queue.kick();
  return queued;
}

async function findRun(deps: Deps, model: Model, agentId: number): Promise<AgentRunRow> {
  const r = await agentsRepo(deps.db).find(model.id, agentId);
  if (!r) fail('notFound');
  return r;
}

export async function listAgents(deps: Deps, model: Model): Promise<AgentRunListData> {
  const items = (await agentsRepo(deps.db).list(model.id)).map((r) => agentView(r, deps.now()));
  return { items, total: items.length };
}

export async function getAgent(deps: Deps, model: Model, agentId: number): Promise<AgentRunData> {
  return agentView(await findRun(deps, model, agentId), deps.now());
}

export async function agentDetail(deps: Deps, model: Model, agentId: number): Promise<AgentRunDetailData> {
  const r = await findRun(deps, model, agentId);
  const trials = (await agentsRepo(deps.db).trials(r.id)).map(trialView);
  return { run: agentView(r, deps.now()), trials, log: logOf(r) };
}

/**
 * Cancels the run in any phase: a queued job ends at once; a running one gets SIGTERM here, or through
 * cancel_requested when another process runs it, and the job records the end (its training or test too).
 */
export async function stopAgent(deps: Deps, model: Model, agentId: number): Promise<AgentRunData> {
  const r = await findRun(deps, model, agentId);
  if (isTerminalPhase(r.phase) || r.job_id === null) fail('agentNotActive');
  await deps.jobs.update(r.job_id, { cancel_requested: 1 });
  const res = await deps.db.updateTable('jobs').set({ state: 'cancelled', finished_at: deps.now() }).where('id', '=', r.job_id).where('state', '=', 'queued').executeTakeFirst();
  if (Number(res.numUpdatedRows) === 1) {
    const rec = agentRecorder(deps, r.id);
    await rec.log('cancelled', {}, 'cancelled');
    await rec.end('cancelled');
  } else {
    deps.queue.cancel(r.job_id);
  }
  return getAgent(deps, model, agentId);
}
