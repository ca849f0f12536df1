import { TerminalAgentPhases, type AgentLogEntry, type AgentPhase, type AgentRunData, type AgentTrial, type AgentWorkPhase, type Language } from '@loupe/contracts';
import type { AgentRunRow, AgentTrialRow } from '../../db/agents.js';

/** What a run was started with (agent_runs.settings). */
export interface AgentSettings {
  recallTarget: number;
  ngLabelIds: number[];
  earlyStop: number;
  language: Language;
}

/** What the phases decided so far (agent_runs.state): a takeover resumes from it. */
export interface AgentState {
  done: AgentWorkPhase[];
  analysisId?: number | null;
  baseParams?: Record<string, unknown>;
  chosenParams?: Record<string, unknown>;
  adopted?: boolean | null;
  trainingIds: number[];
  testRunIds: number[];
  bestTrainingId?: number | null;
  /** Per trained version: the score it reached on its test (F1 at its suggested confidence, or mAP50). */
  scores?: Record<string, number>;
  /** F1 per class of the main version at its suggested confidence (the retrain's rule b). */
  perClassF1?: Record<string, number> | null;
  /** When each working phase started and ended (ms), for the plan of what is left. */
  startedAt?: Partial<Record<AgentWorkPhase, number>>;
}

export const isTerminalPhase = (p: AgentPhase) => TerminalAgentPhases.includes(p);
const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export const settingsOf = (r: AgentRunRow) => JSON.parse(r.settings) as AgentSettings;

export function stateOf(r: AgentRunRow): AgentState {
  const s = JSON.parse(r.state) as Partial<AgentState>;
  return { ...s, done: s.done ?? [], trainingIds: s.trainingIds ?? [], testRunIds: s.testRunIds ?? [] };
}

export const logOf = (r: AgentRunRow) => JSON.parse(r.log) as AgentLogEntry[];

export function agentView(r: AgentRunRow, now: number): AgentRunData {
  const settings = settingsOf(r);
  const state = stateOf(r);
  const running = !isTerminalPhase(r.phase) && r.deadline_at !== null;
  return {
    id: r.id,
    modelId: r.model_id,
    phase: r.phase,
    budgetS: r.budget_s,
    plan: JSON.parse(r.plan) as Record<string, number>,
    etaS: running ? Math.max(0, Math.round((Number(r.deadline_at) - now) / 1000)) : null,
    recallTarget: settings.recallTarget,
    ngLabelIds: settings.ngLabelIds,
    earlyStop: settings.earlyStop,
    analysisId: state.analysisId ?? null,
    baseParams: state.baseParams ?? null,
    chosenParams: state.chosenParams ?? null,
    adopted: state.adopted ?? null,
    trainingIds: state.trainingIds,
    bestTrainingId: state.bestTrainingId ?? null,
    testRunIds: state.testRunIds,
    error: r.error,
    createdAt: iso(r.created_at)!,
    startedAt: iso(r.started_at),
    endedAt: iso(r.ended_at),
  };
}

export function trialView(t: AgentTrialRow): AgentTrial {
  return {
    number: t.number,
    params: JSON.parse(t.params) as AgentTrial['params'],
    state: t.state,
    score: t.score === null ? null : Number(t.score),
    epochs: Number(t.epochs),
    durationS: t.duration_s === null ? null : Number(t.duration_s),
  };
}

/** A live agent event; the SSE stream replays the same three from the database. */
export type AgentEvent = { type: 'run'; data: AgentRunData } | { type: 'trial'; data: AgentTrial } | { type: 'log'; data: AgentLogEntry };
