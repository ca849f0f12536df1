import { AgentBudgetShares, AgentWorkPhases, type AgentLogEntry, type AgentPhase, type AgentWorkPhase } from '@loupe/contracts';
import { agentsRepo, type AgentRunRow } from '../../db/agents.js';
import { agentText } from '../../i18n.js';
import type { Deps } from '../deps.js';
import { agentView, logOf, settingsOf, stateOf, trialView, type AgentState } from './view.js';

type Params = Record<string, string | number>;

/** The agent's job writes its run through this: every change is stored, then published to the live streams. */
export interface AgentRecorder {
  readonly id: number;
  row(): Promise<AgentRunRow>;
  state(): Promise<AgentState>;
  /** Merges `patch` into agent_runs.state. */
  saveState(patch: Partial<AgentState>): Promise<AgentState>;
  /** Enters a phase: its plan (a share of what is left, in proportion to the phases still to run) and the ETA. */
  enter(phase: AgentWorkPhase): Promise<number>;
  /** Ends the run in a terminal phase (with the stored reason when failed). */
  end(phase: 'complete' | 'failed' | 'cancelled', error?: string | null): Promise<void>;
  /** A log entry, in the run's phase unless `phase` names the one it ends in. */
  log(key: string, params?: Params, phase?: AgentPhase): Promise<void>;
  publishRun(): Promise<void>;
  trial(t: { number: number; params: Record<string, unknown>; state: string; score: number | null; epochs?: number; duration_s?: number | null }): Promise<void>;
}

export function agentRecorder(deps: Deps, agentId: number): AgentRecorder {
  const repo = agentsRepo(deps.db);
  const row = async () => {
    const r = await repo.byId(agentId);
    if (!r) throw new Error(`agent run ${agentId} is gone`);
    return r;
  };
  const publishRun = async () => deps.agentEvents.publish(agentId, { type: 'run', data: agentView(await row(), deps.now()) });
  const rec: AgentRecorder = {
    id: agentId,
    row,
    state: async () => stateOf(await row()),
    async saveState(patch) {
      const next = { ...stateOf(await row()), ...patch };
      await repo.update(agentId, { state: JSON.stringify(next) });
      return next;
    },
    async enter(phase) {
      const r = await row();
      const now = deps.now();
      const left = Math.max(0, (Number(r.deadline_at) - now) / 1000);
      const rest = AgentWorkPhases.slice(AgentWorkPhases.indexOf(phase));
      const shares = rest.reduce((sum, p) => sum + AgentBudgetShares[p], 0);
      const plan = JSON.parse(r.plan) as Record<string, number>;
      for (const p of rest) plan[p] = Math.round((left * AgentBudgetShares[p]) / shares);
      const state = stateOf(r);
      await repo.update(agentId, { phase, plan: JSON.stringify(plan), state: JSON.stringify({ ...state, startedAt: { ...state.startedAt, [phase]: now } }) });
      await publishRun();
      return plan[phase]!;
    },
    async end(phase, error = null) {
      await repo.update(agentId, { phase, error, ended_at: deps.now() });
      await publishRun();
    },
    async log(key, params = {}, phase) {
      const r = await row();
      const entry: AgentLogEntry = { at: new Date(deps.now()).toISOString(), phase: phase ?? r.phase, key, params, text: agentText(settingsOf(r).language, key, params) };
      await repo.update(agentId, { log: JSON.stringify([...logOf(r), entry]) });
      deps.agentEvents.publish(agentId, { type: 'log', data: entry });
    },
    publishRun,
    async trial(t) {
      const stored = {
        agent_id: agentId,
        number: t.number,
        params: JSON.stringify(t.params ?? {}),
        state: (['running', 'complete', 'pruned', 'failed'].includes(t.state) ? t.state : 'failed') as 'running',
        score: typeof t.score === 'number' && Number.isFinite(t.score) ? t.score : null,
        epochs: Math.max(0, Math.round(t.epochs ?? 0)),
        duration_s: typeof t.duration_s === 'number' ? t.duration_s : null,
      };
      await repo.upsertTrial(stored);
      deps.agentEvents.publish(agentId, { type: 'trial', data: trialView({ id: 0, ...stored }) });
    },
  };
  return rec;
}

