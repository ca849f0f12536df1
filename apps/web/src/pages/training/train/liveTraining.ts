import type {
  TrainingData,
  TrainingEpochData,
  TrainingPhase,
  TrainingProgressEvent,
  TrainingStateEvent,
  TrainingStatus,
} from '@loupe/contracts';

/** What the progress panel and the live curves show of the running training. */
export interface LiveTraining {
  status: TrainingStatus;
  phase: TrainingPhase;
  epoch: number;
  epochs: number;
  etaS: number | null;
  /** One entry per finished epoch, in epoch order, without duplicates (a reconnect may replay some). */
  history: TrainingEpochData[];
  error: string | null;
}

export type LiveEvent = { type: 'progress'; data: TrainingProgressEvent } | { type: 'state'; data: TrainingStateEvent };

export const TERMINAL_STATUSES: readonly TrainingStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminal = (status: TrainingStatus) => TERMINAL_STATUSES.includes(status);

export function initialLive(training: TrainingData): LiveTraining {
  return {
    status: training.status,
    phase: training.phase,
    epoch: training.epoch,
    epochs: training.epochs,
    etaS: training.etaS,
    history: [],
    error: training.error,
  };
}

/** A phase tells the status before the `state` event does: the server moves both together. */
function statusOfPhase(status: TrainingStatus, phase: TrainingPhase): TrainingStatus {
  if (isTerminal(status)) return status;
  if (phase === 'training' || phase === 'validating') return 'training';
  if (phase === 'preparing' && status === 'queued') return 'preparing';
  return status;
}

function withEpoch(history: TrainingEpochData[], entry: TrainingEpochData): TrainingEpochData[] {
  const last = history[history.length - 1];
  if (!last || last.epoch < entry.epoch) return [...history, entry];
  // A replayed or out-of-order epoch replaces its entry rather than adding a second point.
  const rest = history.filter((h) => h.epoch !== entry.epoch);
  return [...rest, entry].sort((a, b) => a.epoch - b.epoch);
}

/** Apply one SSE event: `progress` is an epoch (metrics) or a phase change (no metrics); `state` the status. */
export function applyEvent(state: LiveTraining, event: LiveEvent): LiveTraining {
  if (event.type === 'state') {
    return { ...state, status: event.data.status, error: event.data.error ?? state.error, etaS: isTerminal(event.data.status) ? null : state.etaS };
  }
  const p = event.data;
  const next: LiveTraining = { ...state, phase: p.phase, status: statusOfPhase(state.status, p.phase) };
  if (p.epochs > 0) next.epochs = p.epochs;
  if (Object.keys(p.metrics ?? {}).length === 0) return next;
  next.epoch = p.epoch;
  next.etaS = p.etaS;
  next.history = withEpoch(state.history, { epoch: p.epoch, epochs: p.epochs, metrics: p.metrics, etaS: p.etaS });
  return next;
}

/** Parse an SSE message into a training event; unknown types and unreadable data are skipped. */
export function parseEvent(type: string, data: string): LiveEvent | null {
  if (type !== 'progress' && type !== 'state') return null;
  try {
    const parsed = JSON.parse(data) as unknown;
    if (!parsed || typeof parsed !== 'object') return null;
    return { type, data: parsed } as LiveEvent;
  } catch {
    return null;
  }
}
