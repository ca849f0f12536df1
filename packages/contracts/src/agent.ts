import { Type, type Static } from 'typebox';

/**
 * Dataset analysis, test analysis and the AI agent (issue 35; SPEC §1, §2 agent and statistics, §4 agent phases
 * and analysis job states, §8 analysis messages). The analysis is an engine command run as a job (kind
 * 'analysis'); its result is stored per dataset version (the hash of the analysed manifest) and shown on
 * /statistics. The agent is a job (kind 'agent') that analyses, tunes, trains, tests and retrains within a
 * wall-clock budget; its trainings are normal versions.
 */
export const AgentPaths = {
  /**
   * GET → DatasetAnalysisData of the model's current data (404 analysisNotFound when never analysed; `stale` when
   * the data changed since). POST AnalysisStartBody → DatasetAnalysisData (queued), or the stored one when the data
   * did not change and `force` is not set.
   */
  analysis: '/api/models/:modelId/analysis',
  /** POST AnalysisFixBody → AnalysisFixData: applies one finding's safe fix, then the analysis is stale. */
  analysisFix: '/api/models/:modelId/analysis/:analysisId/fix',
  /** GET → AgentRunListData (newest first); POST AgentStartBody → AgentRunData (phase initialising, job queued). */
  list: '/api/models/:modelId/agents',
  /** GET → AgentRunDetailData: the run, its trials and its log. */
  one: '/api/models/:modelId/agents/:agentId',
  /** POST → AgentRunData: cancels the run in any phase (its running training or test is stopped). */
  stop: '/api/models/:modelId/agents/:agentId/stop',
  /**
   * GET, text/event-stream. Replays first (`run`, every `trial`, every `log`), then streams live: `run`
   * (AgentRunData, on every phase or ETA change), `trial` (AgentTrial, on start and on end), `log`
   * (AgentLogEntry). The stream ends after a `run` in a terminal phase.
   */
  events: '/api/models/:modelId/agents/:agentId/events',
  /** GET ?conf= → TestAnalysisData of one finished test run (conf default: the run's own, never below it). */
  testAnalysis: '/api/models/:modelId/tests/:testId/analysis',
} as const;

export const AgentParamsPath = Type.Object({ modelId: Type.Integer({ minimum: 1 }), agentId: Type.Integer({ minimum: 1 }) });
export type AgentParamsPath = Static<typeof AgentParamsPath>;
export const AnalysisParamsPath = Type.Object({ modelId: Type.Integer({ minimum: 1 }), analysisId: Type.Integer({ minimum: 1 }) });
export type AnalysisParamsPath = Static<typeof AnalysisParamsPath>;

// ---------------------------------------------------------------------------------------------------------
// Dataset analysis

/** SPEC §4 generic analysis job states, the ones an analysis passes through. */
export const AnalysisStatuses = ['queued', 'running', 'completed', 'failed', 'stopped'] as const;
export type AnalysisStatus = (typeof AnalysisStatuses)[number];

export const AnalysisStartBody = Type.Object({
  /** The image size training will use (default: the model's saved `imgsz`, else 640): tiny-object shares use it. */
  imgsz: Type.Optional(Type.Integer({ minimum: 32, maximum: 4096, multipleOf: 32 })),
  /** Analyse again even when the data did not change. */
  force: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type AnalysisStartBody = Static<typeof AnalysisStartBody>;

/** A histogram: counts[i] is the number of values in [edges[i], edges[i+1]) (the last bin includes its end). */
export const Histogram = Type.Object({ edges: Type.Array(Type.Number()), counts: Type.Array(Type.Integer()) });
export type Histogram = Static<typeof Histogram>;

export const AnalysisSplits = ['train', 'val', 'test', 'none'] as const;
export type AnalysisSplit = (typeof AnalysisSplits)[number];
const PerSplit = Type.Object({ train: Type.Integer(), val: Type.Integer(), test: Type.Integer(), none: Type.Integer() });

export const FindingSeverities = ['error', 'warning', 'info'] as const;
export type FindingSeverity = (typeof FindingSeverities)[number];
/**
 * What the health check finds (engine/loupe_engine/analysis). error: training fails or learns wrong (leakage, a
 * class short of the §5 rule); warning: it learns worse; info: worth a look.
 */
export const FindingCodes = [
  'unlabeled', 'duplicate', 'near_duplicate', 'leakage', 'degenerate_box', 'outside_image', 'tiny_box',
  'double_label', 'class_missing_split', 'rare_class', 'class_imbalance', 'blurred', 'dark', 'bright',
] as const;
export type FindingCode = (typeof FindingCodes)[number];
/**
 * The safe one-click fixes. moveLeaked: each duplicate outside the training split moves to the training split of
 * its twin (the twins then train together); deleteDegenerate: removes the degenerate boxes (no area, or wholly
 * outside the image); deleteDoubles: removes the second of each same-class pair that overlaps almost fully.
 */
export const FindingFixes = ['moveLeaked', 'deleteDegenerate', 'deleteDoubles'] as const;
export type FindingFix = (typeof FindingFixes)[number];

export const Finding = Type.Object({
  code: Type.Enum(FindingCodes),
  severity: Type.Enum(FindingSeverities),
  /** How many items (images, boxes, pairs or classes, by code). */
  count: Type.Integer(),
  /** Values for the message (locales statistics.json `finding.<code>`): class names, thresholds, shares. */
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
  /** The images concerned (at most 500), each opens in the gallery or /mark. */
  imageIds: Type.Array(Type.Integer()),
  /** The boxes concerned (degenerate_box, outside_image, tiny_box, double_label: the second of each pair). */
  annotationIds: Type.Optional(Type.Array(Type.Integer())),
  /** Image pairs (duplicate, near_duplicate, leakage), each [first, second]. */
  pairs: Type.Optional(Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]))),
  fix: Type.Optional(Type.Enum(FindingFixes)),
});
export type Finding = Static<typeof Finding>;

export const RecommendationCodes = ['imgsz', 'balance', 'rect', 'tiling', 'model', 'more_images'] as const;
export type RecommendationCode = (typeof RecommendationCodes)[number];
export const Recommendation = Type.Object({
  code: Type.Enum(RecommendationCodes),
  /** Values for the message (locales statistics.json `recommendation.<code>`). */
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
  /** The training parameters it sets (empty when it is advice only, e.g. more_images). */
  set: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
});
export type Recommendation = Static<typeof Recommendation>;

/** analysis.json, as the engine's `analyze` writes it (engine/AGENT.md, Analysis). Sizes are in pixels unless `_rel`. */
export const DatasetAnalysis = Type.Object({
  task: Type.String(),
  imgsz: Type.Integer(),
  counts: Type.Object({
    images: Type.Integer(),
    labeled: Type.Integer(),
    instances: Type.Integer(),
    perSplit: Type.Object({ images: PerSplit, instances: PerSplit }),
    /** Per class: images and instances per split (classification: instances = images). */
    perClass: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), images: PerSplit, instances: PerSplit })),
    objectsPerImage: Histogram,
    /** Most over fewest instances among classes with any (1 = balanced). */
    imbalance: Type.Number(),
  }),
  /** Distinct resolutions, most frequent first (at most 50). */
  resolutions: Type.Array(Type.Object({ width: Type.Integer(), height: Type.Integer(), count: Type.Integer() })),
  /** Null for classification (no boxes). */
  boxes: Type.Union([
    Type.Object({
      count: Type.Integer(),
      width: Histogram,
      height: Histogram,
      widthRel: Histogram,
      heightRel: Histogram,
      areaRel: Histogram,
      aspect: Histogram,
      /** Box centres on a rows×cols grid over the image (relative positions), row-major. */
      heatmap: Type.Object({ rows: Type.Integer(), cols: Type.Integer(), cells: Type.Array(Type.Integer()) }),
      /** Share of boxes whose shorter side is under `tinyPx` once the image is resized to `imgsz`. */
      tinyShare: Type.Number(),
      tinyPx: Type.Number(),
    }),
    Type.Null(),
  ]),
  findings: Type.Array(Finding),
  recommendations: Type.Array(Recommendation),
  /** The base configuration: the recommendations' `set`, merged. */
  baseParams: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
});
export type DatasetAnalysis = Static<typeof DatasetAnalysis>;

export const DatasetAnalysisData = Type.Object({
  id: Type.Integer(),
  modelId: Type.Integer(),
  status: Type.Enum(AnalysisStatuses),
  /** The data changed since it was analysed: findings may be out of date. */
  stale: Type.Boolean(),
  imgsz: Type.Integer(),
  result: Type.Union([DatasetAnalysis, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
});
export type DatasetAnalysisData = Static<typeof DatasetAnalysisData>;

export const AnalysisFixBody = Type.Object({ fix: Type.Enum(FindingFixes) }, { additionalProperties: false });
export type AnalysisFixBody = Static<typeof AnalysisFixBody>;
export const AnalysisFixData = Type.Object({ fixed: Type.Integer() });
export type AnalysisFixData = Static<typeof AnalysisFixData>;

// ---------------------------------------------------------------------------------------------------------
// The agent

/** SPEC §4 agent auto-training phases. */
export const AgentPhases = ['notStarted', 'initialising', 'tuning', 'training', 'testing', 'retraining', 'complete', 'failed', 'cancelled'] as const;
export type AgentPhase = (typeof AgentPhases)[number];
export const TerminalAgentPhases: readonly AgentPhase[] = ['complete', 'failed', 'cancelled'];
/** The working phases, in order, each with its share of the budget (what one leaves goes to the next). */
export const AgentWorkPhases = ['initialising', 'tuning', 'training', 'testing', 'retraining'] as const;
export type AgentWorkPhase = (typeof AgentWorkPhases)[number];
export const AgentBudgetShares: Record<AgentWorkPhase, number> = { initialising: 0.05, tuning: 0.3, training: 0.45, testing: 0.05, retraining: 0.15 };
/** Budget bounds in seconds: under 5 minutes tuning gets a few trials at most (the log says so); 72 h is the training limit. */
export const AgentBudgetMinS = 60;
export const AgentBudgetMaxS = 72 * 3600;

export const AgentStartBody = Type.Object({
  /** Wall-clock budget; default: the saved max training time (`time`, hours), else one hour. */
  budgetS: Type.Optional(Type.Integer({ minimum: AgentBudgetMinS, maximum: AgentBudgetMaxS })),
  /** Recall the NG classes must reach at the suggested NG confidence. */
  recallTarget: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1, default: 0.95 })),
  /** The defect (NG) classes, by label id; default: every class. */
  ngLabelIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 1000 })),
  /** Tuning ends after this many trials without gain (0 = only the budget ends it); default: the saved `agent_early_stop`. */
  earlyStop: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
}, { additionalProperties: false });
export type AgentStartBody = Static<typeof AgentStartBody>;

export const AgentRunData = Type.Object({
  id: Type.Integer(),
  modelId: Type.Integer(),
  phase: Type.Enum(AgentPhases),
  budgetS: Type.Integer(),
  /** Seconds planned per working phase (AgentBudgetShares of the budget, plus what earlier phases left). */
  plan: Type.Record(Type.String(), Type.Number()),
  /** Seconds left until the budget ends (null before it starts and once it ends). */
  etaS: Type.Union([Type.Number(), Type.Null()]),
  recallTarget: Type.Number(),
  ngLabelIds: Type.Array(Type.Integer()),
  earlyStop: Type.Integer(),
  analysisId: Type.Union([Type.Integer(), Type.Null()]),
  /** The base configuration (analysis recommendations) and the one trained (base, or tuned when adopted). */
  baseParams: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  chosenParams: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  /** Whether the tuned configuration beat the base by more than seed noise. */
  adopted: Type.Union([Type.Boolean(), Type.Null()]),
  /** The versions it trained: the main one, then the retrain if any. */
  trainingIds: Type.Array(Type.Integer()),
  /** The version it recommends (the better of main and retrain on the test). */
  bestTrainingId: Type.Union([Type.Integer(), Type.Null()]),
  testRunIds: Type.Array(Type.Integer()),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  startedAt: Type.Union([Type.String(), Type.Null()]),
  endedAt: Type.Union([Type.String(), Type.Null()]),
});
export type AgentRunData = Static<typeof AgentRunData>;
export const AgentRunListData = Type.Object({ items: Type.Array(AgentRunData), total: Type.Integer() });
export type AgentRunListData = Static<typeof AgentRunListData>;

export const TrialStates = ['running', 'complete', 'pruned', 'failed'] as const;
export type TrialState = (typeof TrialStates)[number];
export const AgentTrial = Type.Object({
  number: Type.Integer(),
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  state: Type.Enum(TrialStates),
  /** Validation fitness (detection 0.1 mAP50 + 0.9 mAP50-95, classify top-1, segment mIoU, OCR exact match). */
  score: Type.Union([Type.Number(), Type.Null()]),
  epochs: Type.Integer(),
  durationS: Type.Union([Type.Number(), Type.Null()]),
});
export type AgentTrial = Static<typeof AgentTrial>;

export const AgentLogEntry = Type.Object({
  at: Type.String(),
  phase: Type.Enum(AgentPhases),
  /** The decision in the user's language, rendered when written (locales agent.json). */
  text: Type.String(),
  /** Its message key and values, for a client that renders it itself. */
  key: Type.String(),
  params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
});
export type AgentLogEntry = Static<typeof AgentLogEntry>;

export const AgentRunDetailData = Type.Object({ run: AgentRunData, trials: Type.Array(AgentTrial), log: Type.Array(AgentLogEntry) });
export type AgentRunDetailData = Static<typeof AgentRunDetailData>;

// ---------------------------------------------------------------------------------------------------------
// Suggested confidences, stored with a version (trainings.suggested_conf) by the agent's auto test

export const SuggestedConfidences = Type.Object({
  /** Confidence that maximises F1 over all classes, and per class (label name → confidence). */
  f1: Type.Object({ overall: Type.Number(), f1: Type.Number(), perClass: Type.Record(Type.String(), Type.Number()) }),
  /** Highest confidence at which every NG class reaches `target` recall (null when none does). */
  recall: Type.Object({ target: Type.Number(), conf: Type.Union([Type.Number(), Type.Null()]), classes: Type.Array(Type.String()) }),
  /** The test run they come from. */
  testRunId: Type.Integer(),
});
export type SuggestedConfidences = Static<typeof SuggestedConfidences>;

// ---------------------------------------------------------------------------------------------------------
// Test analysis (statistics of one test run)

export const ErrorKinds = ['falsePositive', 'missed', 'wrongClass', 'poorLocalisation'] as const;
export type ErrorKind = (typeof ErrorKinds)[number];

export const TestAnalysisData = Type.Object({
  task: Type.String(),
  /** The confidence the figures below are at, and the lowest the run kept (curves start there). */
  conf: Type.Number(),
  minConf: Type.Number(),
  perClass: Type.Array(Type.Object({
    name: Type.String(),
    precision: Type.Number(),
    recall: Type.Number(),
    f1: Type.Number(),
    /** Ground-truth instances (classification: images). */
    support: Type.Integer(),
    /** Segmentation only: IoU of the class's pixels. */
    iou: Type.Optional(Type.Number()),
  })),
  /** Per class: recall (x) against precision (y), ordered by falling confidence. Empty for segmentation. */
  prCurves: Type.Array(Type.Object({ name: Type.String(), points: Type.Array(Type.Tuple([Type.Number(), Type.Number()])) })),
  /** F1 over all classes at each confidence step ([conf, f1]), and per class. */
  f1Curve: Type.Array(Type.Tuple([Type.Number(), Type.Number()])),
  f1CurvePerClass: Type.Array(Type.Object({ name: Type.String(), points: Type.Array(Type.Tuple([Type.Number(), Type.Number()])) })),
  /** Confidence histograms of true and false positives (same edges). */
  confidence: Type.Object({ edges: Type.Array(Type.Number()), tp: Type.Array(Type.Integer()), fp: Type.Array(Type.Integer()) }),
  /** Errors at `conf` by kind (detection and OBB; classification has wrongClass only). */
  errors: Type.Record(Type.String(), Type.Integer()),
  /** Classification: rows predicted, columns true, over `labels`. */
  confusion: Type.Union([Type.Object({ labels: Type.Array(Type.String()), matrix: Type.Array(Type.Array(Type.Integer())) }), Type.Null()]),
  suggested: Type.Union([SuggestedConfidences, Type.Null()]),
});
export type TestAnalysisData = Static<typeof TestAnalysisData>;
