import { Type, type Static } from 'typebox';

/**
 * The monitor of one model (SPEC §2 /monitor, issue 31 item 3): its jobs that are queued or running now, with
 * the engine process's figures and last log lines, and the history of its trainings, tests and exports. The
 * page polls it every MonitorPollMs.
 */
export const MonitorPaths = {
  /** GET → MonitorData. The model's owner only (anyone else: the model's not-found). */
  model: '/api/models/:modelId/monitor',
} as const;

/** How often the monitor page asks again: process figures are sampled between two asks. */
export const MonitorPollMs = 2000;
/** Log lines of a running job kept in memory (the runner's ring buffer) and answered. */
export const MonitorLogLines = 200;
/** History rows answered, newest first. */
export const MonitorHistoryMax = 50;

export const MonitorJobKinds = ['training', 'test', 'export'] as const;
export type MonitorJobKind = (typeof MonitorJobKinds)[number];
export const MonitorJobStates = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

const NullNum = Type.Union([Type.Number(), Type.Null()]);
const NullInt = Type.Union([Type.Integer(), Type.Null()]);
const NullStr = Type.Union([Type.String(), Type.Null()]);

/** The engine process of a running job, read from /proc (Linux); null where it cannot be read. */
export const MonitorProcess = Type.Object({
  pid: Type.Integer(),
  /** Share of one core over the last sample interval, 0..100 × cores; null until two samples exist. */
  cpuPercent: NullNum,
  /** Resident memory, bytes. */
  rssBytes: NullInt,
});
export type MonitorProcess = Static<typeof MonitorProcess>;

/** The GPU the engine trains on, from its own epoch events; null = no GPU (trains on the CPU). */
export const MonitorGpu = Type.Object({
  name: Type.String(),
  /** Utilisation %, when the driver tells. */
  utilPercent: NullNum,
  memoryUsedBytes: NullInt,
  memoryTotalBytes: NullInt,
});
export type MonitorGpu = Static<typeof MonitorGpu>;

export const MonitorEpoch = Type.Object({ epoch: Type.Integer(), metrics: Type.Record(Type.String(), Type.Unknown()) });
export type MonitorEpoch = Static<typeof MonitorEpoch>;

export const MonitorActiveJob = Type.Object({
  jobId: Type.Integer(),
  kind: Type.Enum(MonitorJobKinds),
  state: Type.Enum(['queued', 'running'] as const),
  /** The training's id (training), or the id of the version tested or exported. */
  trainingId: NullInt,
  /** "v3": the version trained, tested or exported. */
  version: NullStr,
  /** training: preparing/training/validating; test: testing; export: packing; queued: queued. */
  phase: Type.String(),
  epoch: Type.Integer(),
  epochs: Type.Integer(),
  /** Images done / total (a test). */
  done: Type.Integer(),
  total: Type.Integer(),
  etaS: NullNum,
  /** 1 = the next job the runner takes; null while running. */
  queuePosition: NullInt,
  /** ISO 8601. */
  queuedAt: Type.String(),
  startedAt: NullStr,
  /** A training's epochs so far, for the loss and metric curves. */
  curves: Type.Array(MonitorEpoch),
  process: Type.Union([MonitorProcess, Type.Null()]),
  gpu: Type.Union([MonitorGpu, Type.Null()]),
  /** The engine's last log lines (at most MonitorLogLines), server paths cut to file names. */
  log: Type.Array(Type.String()),
});
export type MonitorActiveJob = Static<typeof MonitorActiveJob>;

export const MonitorHistoryItem = Type.Object({
  jobId: Type.Integer(),
  kind: Type.Enum(MonitorJobKinds),
  state: Type.Enum(MonitorJobStates),
  trainingId: NullInt,
  version: NullStr,
  /** The test run's or the pack's id, for the link to its page. */
  subjectId: NullInt,
  queuedAt: Type.String(),
  startedAt: NullStr,
  endedAt: NullStr,
  /** Started to ended (or to now while running), seconds. */
  durationS: NullNum,
  /** Why it failed, in the caller's language. */
  error: NullStr,
});
export type MonitorHistoryItem = Static<typeof MonitorHistoryItem>;

export const MonitorData = Type.Object({
  active: Type.Array(MonitorActiveJob),
  history: Type.Array(MonitorHistoryItem),
  /** Whether this server can see a GPU (nvidia-smi answers or an engine reported one). */
  gpuPresent: Type.Boolean(),
});
export type MonitorData = Static<typeof MonitorData>;
