import {
  AgentWorkPhases,
  type AgentLogEntry,
  type AgentPhase,
  type AgentRunData,
  type AgentTrial,
} from '@loupe/contracts';

/** What the SSE stream sends (AgentPaths.events), and `reset`: a reconnection that replays everything again. */
export type AgentEvent =
  | { type: 'run'; data: AgentRunData }
  | { type: 'trial'; data: AgentTrial }
  | { type: 'log'; data: AgentLogEntry }
  | { type: 'reset' };

export interface LiveAgent {
  run: AgentRunData;
  trials: AgentTrial[];
  log: AgentLogEntry[];
}

export const initialLive = (run: AgentRunData): LiveAgent => ({ run, trials: [], log: [] });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An event of the stream, or null for one this page does not know (a later server may send more). */
export function parseEvent(type: string, data: string): AgentEvent | null {
  if (type !== 'run' && type !== 'trial' && type !== 'log') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (!isObject(parsed)) return null;
  if (type === 'run' && typeof parsed.id === 'number' && typeof parsed.phase === 'string') return { type, data: parsed as AgentRunData };
  if (type === 'trial' && typeof parsed.number === 'number') return { type, data: parsed as AgentTrial };
  if (type === 'log' && typeof parsed.text === 'string') return { type, data: parsed as AgentLogEntry };
  return null;
}

/** A trial is sent when it starts and again when it ends: the later one replaces the earlier, by number. */
function withTrial(trials: AgentTrial[], trial: AgentTrial): AgentTrial[] {
  const rest = trials.filter((t) => t.number !== trial.number);
  return [...rest, trial].sort((a, b) => a.number - b.number);
}

export function applyEvent(state: LiveAgent, event: AgentEvent): LiveAgent {
  switch (event.type) {
    case 'run':
      return { ...state, run: event.data };
    case 'trial':
      return { ...state, trials: withTrial(state.trials, event.data) };
    case 'log':
      return { ...state, log: [...state.log, event.data] };
    case 'reset':
      // The replay brings the whole log again; trials are replaced by number anyway.
      return { ...state, log: [] };
  }
}

/** The phases as steps: not started, the working ones, complete. */
export const STEP_PHASES: readonly AgentPhase[] = ['notStarted', ...AgentWorkPhases, 'complete'];

/**
 * The step a run stands on. A failed or cancelled run stands on the working phase it ended in: the last one its
 * log speaks of (the server logs each phase as it begins), else initialising when it had started.
 */
export function stepOf(run: AgentRunData, log: readonly AgentLogEntry[]): AgentPhase {
  if (run.phase !== 'failed' && run.phase !== 'cancelled') return run.phase;
  const work = AgentWorkPhases as readonly AgentPhase[];
  const last = [...log].reverse().find((entry) => work.includes(entry.phase));
  if (last) return last.phase;
  return run.startedAt ? 'initialising' : 'notStarted';
}

/** Seconds left now, counted down from the last value the server sent at `receivedAt` (ms). */
export function etaNow(etaS: number | null, receivedAt: number, now: number): number | null {
  if (etaS === null) return null;
  return Math.max(0, etaS - Math.floor((now - receivedAt) / 1000));
}
