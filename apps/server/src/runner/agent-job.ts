import { agentsRepo } from '../db/agents.js';
import { agentJobFailed, AGENT_SHUTDOWN_REASON, runAgentJob, type AgentPayload } from '../services/agent/run.js';
import { stateOf } from '../services/agent/view.js';
import { setTrainingStatus } from '../services/training/state.js';
import type { JobHandler } from './handlers.js';
import { SHUTDOWN_REASON } from './training-job.js';

/** How long past its budget an agent may hold its slot: its last training stops at the budget, then tests and saves. */
const GRACE_S = 300;

/** Runs an agent job (issue 35): services/agent/run.ts. */
export const agentHandler: JobHandler = {
  run: runAgentJob,
  // The runner's shutdown reason speaks of a training.
  fail: (deps, job, reason) => agentJobFailed(deps, job, reason === SHUTDOWN_REASON ? AGENT_SHUTDOWN_REASON : reason),
  async timeoutS(deps, job) {
    const row = await agentsRepo(deps.db).byId((JSON.parse(job.payload) as AgentPayload).agentId);
    if (!row) return null;
    // A takeover keeps the first start's deadline.
    const left = row.deadline_at === null ? row.budget_s : (Number(row.deadline_at) - deps.now()) / 1000;
    return Math.max(1, left) + GRACE_S;
  },
  async requeued(deps, job) {
    const row = await agentsRepo(deps.db).byId((JSON.parse(job.payload) as AgentPayload).agentId);
    if (!row) return;
    // Its running training waits with it; the next runner resumes it from its checkpoint.
    for (const id of stateOf(row).trainingIds) {
      const t = await deps.trainings.byId(id);
      if (t && (t.status === 'preparing' || t.status === 'training')) await setTrainingStatus(deps, id, 'queued');
    }
  },
};
