import { Type, type Static } from 'typebox';
import type { ModelType } from './menus.js';
import { TrainingStatuses } from './models.js';

/**
 * Trainings (SPEC §3 training record and parameters, §4 training states, §5 training rules). Starting one
 * freezes the model's labeled images, labels, annotations and splits into an immutable snapshot and queues a
 * job; progress streams over SSE. One training per model at a time (ongoingTraining).
 */
export const TrainingPaths = {
  /** GET → TrainingListData (newest first); POST TrainingStartBody → TrainingData (status queued). */
  list: '/api/models/:modelId/trainings',
  /** GET → TrainingDetailData: the record plus the per-epoch metrics history. */
  one: '/api/models/:modelId/trainings/:trainingId',
  /** POST → TrainingData. Abandons the training's progress: it ends cancelled (SPEC §4). */
  stop: '/api/models/:modelId/trainings/:trainingId/stop',
  /**
   * GET, text/event-stream. Replays the history first (one `progress` per finished epoch, id = epoch, then the
   * current `state`), then streams live; a reconnect with Last-Event-ID only gets the epochs after it. The stream
   * ends after the terminal `state`.
   */
  events: '/api/models/:modelId/trainings/:trainingId/events',
  /** GET → PretrainedListData: the caller's own versions that can start a training (`pretrained`), newest first. */
  pretrained: '/api/trainings/pretrained',
  /**
   * POST TrainingStartBody → TrainingEstimateData: what a start with these parameters (absent: the saved ones)
   * would plan on the model's current data, its time on this server, and warnings when it is too little to learn.
   */
  estimate: '/api/models/:modelId/trainings/estimate',
} as const;

/** Statuses in which a training holds its model (project status 'training'). */
export const ActiveTrainingStatuses = ['queued', 'preparing', 'training'] as const;
/** Engine phases shown beside the progress bar. */
export const TrainingPhases = ['queued', 'preparing', 'training', 'validating'] as const;
export type TrainingPhase = (typeof TrainingPhases)[number];

/**
 * What a training teaches the engine (engine/README.md `--task`): axis-aligned boxes, rotated boxes, one class
 * per image, a class per pixel, or text lines (found and read). Each decides the metrics of epochs, summaries and
 * test runs (TrainingData.accuracy).
 */
export const TrainingTasks = ['detect', 'obb', 'classify', 'segment', 'ocr'] as const;
export type TrainingTask = (typeof TrainingTasks)[number];
/** Whether the task's boxes are rotated (TrainingData.rotated, the export form's rotated-box type): OCR finds text lines at any angle. */
export const isRotated = (task: TrainingTask): boolean => task === 'obb' || task === 'ocr';
/**
 * The model types that train, with their tasks: the second is taken when asked (`rotated`) or when the data has
 * rotated boxes. DETECTION: boxes or rotated boxes; MEASURE: polygons (masks to measure) or rotated boxes.
 */
export const TrainableTypes = {
  DETECTION: ['detect', 'obb'],
  classification: ['classify'],
  SEGMENTATION: ['segment'],
  /** A rotated-box text detector and a CTC text recognizer, trained together (engine/README.md, OCR). */
  OCR: ['ocr'],
  MEASURE: ['segment', 'obb'],
} as const satisfies Partial<Record<ModelType, readonly TrainingTask[]>>;

export const ParamGroups = ['basic', 'augmentation', 'learning', 'loss'] as const;
export type ParamGroup = (typeof ParamGroups)[number];

/**
 * One training parameter, with the engine's rules (engine/loupe_engine/config.py; a server test compares both).
 * `rule` adds the SPEC §5 rules a range cannot say.
 */
export interface ParamDef {
  group: ParamGroup;
  type: 'int' | 'float' | 'bool' | 'enum' | 'str';
  default: number | boolean | string;
  min?: number;
  max?: number;
  choices?: readonly string[];
  rule?: 'multipleOf32' | 'multipleOf32or0' | 'trainingHours' | 'batchSize' | 'trainingId';
  /**
   * Accepted (saved parameters and older trainings carry it, and the engine still takes it) but not shown: it does
   * nothing today. ShownParamKeys leaves it out.
   */
  hidden?: true;
}

const int = (group: ParamGroup, d: number, min: number, max: number, rule?: ParamDef['rule']): ParamDef => ({ group, type: 'int', default: d, min, max, ...(rule ? { rule } : {}) });
const num = (group: ParamGroup, d: number, min: number, max: number, rule?: ParamDef['rule']): ParamDef => ({ group, type: 'float', default: d, min, max, ...(rule ? { rule } : {}) });
const bool = (group: ParamGroup, d: boolean): ParamDef => ({ group, type: 'bool', default: d });
const choice = (group: ParamGroup, d: string, choices: readonly string[]): ParamDef => ({ group, type: 'enum', default: d, choices });
const prob = (d: number): ParamDef => num('augmentation', d, 0, 1);

/** Every SPEC §3 training parameter by the engine's key; the order is the form's. */
export const TrainingParams = {
  /**
   * auto: n on CUDA; on a CPU n when the time budget gives n at least 15 epochs over the training images (measured
   * speeds per task; AMX's bfloat16 makes n cheaper), else p (engine/HARDWARE.md, "Defaults by hardware and budget").
   */
  model: choice('basic', 'auto', ['auto', 'p', 'n', 's', 'm']),
  imgsz: int('basic', 640, 32, 4096, 'multipleOf32'),
  crop: int('basic', 0, 0, 4096, 'multipleOf32or0'),
  batch: int('basic', -1, -1, 1024, 'batchSize'),
  epochs: int('basic', 100, 1, 10000),
  time: num('basic', 0, 0, 72, 'trainingHours'),
  patience: int('basic', 50, 0, 10000),
  /**
   * The agent (issue 35): tuning ends after this many trials without gain (0 = only the budget ends it). A stored
   * boolean (before issue 35) reads as 5 (true) or 0 (false).
   */
  agent_early_stop: int('basic', 5, 0, 100),
  /**
   * The weights to start from: '' (from scratch) or the id of one of the user's own succeeded trainings, as
   * decimal digits (PretrainedChoice.trainingId). The server resolves it to that training's best.pt and writes a
   * path of its own into the engine's job spec; no text the user types is ever a path.
   */
  pretrained: { group: 'basic', type: 'str', default: '', rule: 'trainingId' },
  freeze: int('basic', 0, 0, 10),
  dropout: num('basic', 0, 0, 1),
  seed: int('basic', 0, 0, 2 ** 31 - 1),
  overlap_mask: bool('basic', true),
  workers: int('basic', 0, 0, 64),
  procs: int('basic', 0, 0, 64),
  close_mosaic: int('basic', 10, 0, 10000),
  amp: bool('basic', true),
  deterministic: bool('basic', false),
  cache: bool('basic', false),
  rect: bool('basic', false),
  single_cls: bool('basic', false),
  /** Class-balanced sampling: images of rare classes are drawn more often (issue 35; the agent's retrain uses it). */
  balance: bool('basic', false),
  multi_scale: bool('basic', false),
  fraction: num('basic', 1, 0.01, 1),
  profile: bool('basic', false),
  val: bool('basic', true),
  hsv_h: prob(0.015),
  hsv_s: prob(0.7),
  hsv_v: prob(0.4),
  degrees: num('augmentation', 0, 0, 180),
  translate: prob(0.1),
  scale: prob(0.5),
  shear: num('augmentation', 0, 0, 90),
  perspective: num('augmentation', 0, 0, 0.001),
  flipud: prob(0),
  fliplr: prob(0.5),
  transpose: prob(0),
  bgr: prob(0),
  mosaic: prob(1),
  mixup: prob(0),
  cutmix: prob(0),
  copy_paste: prob(0),
  erasing: prob(0),
  auto_augment: prob(0),
  optimizer: choice('learning', 'auto', ['auto', 'SGD', 'Adam', 'AdamW']),
  lr0: num('learning', 0.01, 1e-6, 1),
  lrf: num('learning', 0.01, 1e-4, 1),
  scheduler: choice('learning', 'linear', ['linear', 'cosine']),
  cos_lr: bool('learning', false),
  momentum: num('learning', 0.937, 0, 1),
  weight_decay: num('learning', 0.0005, 0, 0.1),
  warmup_epochs: num('learning', 3, 0, 100),
  warmup_momentum: num('learning', 0.8, 0, 1),
  warmup_bias_lr: num('learning', 0.1, 0, 1),
  box: num('loss', 7.5, 0, 100),
  cls: num('loss', 0.5, 0, 100),
  obj: num('loss', 1, 0, 100),
  dfl: num('loss', 1.5, 0, 100),
  /** No task here trains keypoints. */
  pose: { ...num('loss', 12, 0, 100), hidden: true },
} as const satisfies Record<string, ParamDef>;
export type TrainingParamKey = keyof typeof TrainingParams;

/** The parameters the form shows, in its order: every one but those that do nothing (`hidden`). */
export const ShownParamKeys: readonly TrainingParamKey[] = (Object.keys(TrainingParams) as TrainingParamKey[]).filter(
  (key) => !(TrainingParams[key] as ParamDef).hidden,
);
export type TrainingParamValues = Partial<Record<TrainingParamKey, number | boolean | string>>;

/** A parameter problem: `reason` is a validation reason key (locales/<lang>/validation.json). */
export interface ParamProblem {
  field: string;
  reason: 'unknown' | 'type' | 'range' | 'enum' | 'multipleOf32' | 'multipleOf32or0' | 'trainingHours' | 'batchSize' | 'trainingId';
}

/** Checks parameters by the engine's rules, one problem per bad key, so the form and the server agree. */
export function checkTrainingParams(params: Record<string, unknown>): ParamProblem[] {
  const problems: ParamProblem[] = [];
  const defs: Record<string, ParamDef> = TrainingParams;
  for (const [field, value] of Object.entries(params)) {
    const def = defs[field];
    if (!def) {
      problems.push({ field, reason: 'unknown' });
      continue;
    }
    const isNum = typeof value === 'number' && Number.isFinite(value);
    if (def.type === 'bool' ? typeof value !== 'boolean' : def.type === 'enum' || def.type === 'str' ? typeof value !== 'string' : !isNum) {
      problems.push({ field, reason: 'type' });
    } else if (def.type === 'int' && !Number.isInteger(value)) problems.push({ field, reason: 'type' });
    else if (def.choices && !def.choices.includes(value as string)) problems.push({ field, reason: 'enum' });
    else if (isNum && ((def.min !== undefined && value < def.min) || (def.max !== undefined && value > def.max))) problems.push({ field, reason: 'range' });
    else if (def.rule && isNum && ruleBroken(def.rule, value)) problems.push({ field, reason: def.rule });
    else if (def.rule === 'trainingId' && value !== '' && !TRAINING_ID.test(value as string)) problems.push({ field, reason: def.rule });
  }
  return problems;
}

/** A training id as `pretrained` holds it: decimal digits, no sign, no leading zero, at most 15 digits. */
const TRAINING_ID = /^[1-9][0-9]{0,14}$/;

function ruleBroken(rule: NonNullable<ParamDef['rule']>, v: number): boolean {
  if (rule === 'multipleOf32') return v % 32 !== 0;
  if (rule === 'multipleOf32or0') return v % 32 !== 0;
  if (rule === 'trainingHours') return v > 0 && v < 1;
  return v === 0;
}

const Id = Type.Integer({ minimum: 1 });
/**
 * A parameter value as sent: one schema with a type list, not a union of three. The server's validator coerces
 * types, and in a union the first branch wins: `true` became 1 under a number-first union and failed the
 * boolean check; with a type list a value of any listed type is taken as it is.
 */
export const ParamValue = Type.Unsafe<number | boolean | string>({ type: ['number', 'boolean', 'string'], maxLength: 1000 });

export const TrainingParamsPath = Type.Object({ modelId: Id, trainingId: Id });
export type TrainingParamsPath = Static<typeof TrainingParamsPath>;

/** POST …/trainings. Missing parameters take their defaults; `rotated` (detection only, other types ignore it) defaults to "the data has rotated boxes". */
export const TrainingStartBody = Type.Object({
  params: Type.Optional(Type.Record(Type.String(), ParamValue)),
  rotated: Type.Optional(Type.Boolean()),
});
export type TrainingStartBody = Static<typeof TrainingStartBody>;

/** One version `pretrained` may name: a succeeded training of one of the caller's models, with its weights. */
export const PretrainedChoice = Type.Object({
  /** The value `pretrained` takes, as a string of digits. */
  trainingId: Type.Integer(),
  modelId: Type.Integer(),
  modelName: Type.String(),
  /** 'v3' */
  version: Type.String(),
  task: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
});
export type PretrainedChoice = Static<typeof PretrainedChoice>;
export const PretrainedListData = Type.Object({ items: Type.Array(PretrainedChoice) });
export type PretrainedListData = Static<typeof PretrainedListData>;

const NullNum = Type.Union([Type.Number(), Type.Null()]);
const NullStr = Type.Union([Type.String(), Type.Null()]);
/**
 * Engine epoch metrics: numbers and a few nested ones (per_class, val_loss_parts). All tasks: loss, lr,
 * img_per_s, val_loss, precision, recall, f1, inference_ms, fps. detect/obb: mAP50, mAP50_95, loss parts.
 * classify: top1 (= accuracy), top5 (more than 5 classes), loss_cls, per_class {precision, recall, f1, images};
 * segment: mIoU, dice, pixel_accuracy, background_iou, loss_ce, loss_dice, per_class {IoU, dice, precision,
 * recall, pixels}.
 */
const Metrics = Type.Record(Type.String(), Type.Unknown());

/**
 * One piece of advice (issue 31), with the value that would be enough:
 * - epochs: `steps` optimizer steps (training images / batch x epochs) planned or run; at least `minSteps` are
 *   needed from scratch: `epochs` epochs reach them.
 * - imgsz: at `imgsz` px a quarter of the labeled boxes are `boxPx` px or less on their shorter side (the
 *   detector's finest grid is 8 px): image size at least `target`.
 * - labels: `label` has `count` training instances (images for a classifier); at least `target` are advised.
 * - time: the time limit stops the planned epochs: `hours` would be needed (estimate) / it stopped at `epoch`.
 * - patience: it stopped early at `epoch` of `epochs` without improving: a larger patience or more data.
 */
export const TrainingAdvice = Type.Object({
  kind: Type.Union([Type.Literal('epochs'), Type.Literal('imgsz'), Type.Literal('labels'), Type.Literal('time'), Type.Literal('patience')]),
  steps: Type.Optional(Type.Integer()),
  minSteps: Type.Optional(Type.Integer()),
  epochs: Type.Optional(Type.Integer()),
  epoch: Type.Optional(Type.Integer()),
  imgsz: Type.Optional(Type.Integer()),
  boxPx: Type.Optional(Type.Number()),
  target: Type.Optional(Type.Integer()),
  label: Type.Optional(Type.String()),
  count: Type.Optional(Type.Integer()),
  hours: Type.Optional(Type.Number()),
});
export type TrainingAdvice = Static<typeof TrainingAdvice>;

export const VerdictLevels = ['usable', 'weak', 'unusable'] as const;
export type VerdictLevel = (typeof VerdictLevels)[number];
/**
 * Whether a succeeded training learned something usable, from its summary's headline metric (`metric`: mAP50,
 * top1, mIoU, char_acc): unusable below a minimal score (for a classifier: hardly above chance), weak far below
 * what such data reaches; `advice` computed from the training's parameters and frozen data.
 */
export const TrainingVerdict = Type.Object({
  level: Type.Enum(VerdictLevels),
  metric: Type.String(),
  value: Type.Union([Type.Number(), Type.Null()]),
  /** Below this the result is unusable; below `weakBelow` weak. */
  unusableBelow: Type.Number(),
  weakBelow: Type.Number(),
  advice: Type.Array(TrainingAdvice),
});
export type TrainingVerdict = Static<typeof TrainingVerdict>;

/** The plan a start would make (TrainingPaths.estimate) and its time on this server. */
export const TrainingEstimateData = Type.Object({
  task: Type.Enum(TrainingTasks),
  trainImages: Type.Integer(),
  validImages: Type.Integer(),
  batch: Type.Integer(),
  stepsPerEpoch: Type.Integer(),
  epochs: Type.Integer(),
  steps: Type.Integer(),
  imgsz: Type.Integer(),
  model: Type.String(),
  /** Estimated wall-clock seconds of the whole training (queue wait excluded). */
  seconds: Type.Number(),
  /** Training images per second it assumes at this image size. */
  imgPerS: Type.Number(),
  /** history: measured by `basedOn` past trainings on this server; table: a conservative table for a 2-core CPU. */
  basis: Type.Union([Type.Literal('history'), Type.Literal('table')]),
  basedOn: Type.Integer(),
  warnings: Type.Array(TrainingAdvice),
});
export type TrainingEstimateData = Static<typeof TrainingEstimateData>;

/** The SPEC §3 training record. */
export const TrainingData = Type.Object({
  id: Type.Integer(),
  modelId: Type.Integer(),
  /** Serial no.: 1 for the model's first training. */
  serialNo: Type.Integer(),
  /** "v1", "v2", …; the web shows finetuned_{version}. */
  version: Type.String(),
  /** Rotated-box type: trained on rotated boxes (obb) or axis-aligned ones. */
  rotated: Type.Boolean(),
  /** Which metrics the epochs, summary and evaluation carry (engine/README.md per task). */
  task: Type.Enum(TrainingTasks),
  status: Type.Enum(TrainingStatuses),
  phase: Type.Enum(TrainingPhases),
  /**
   * The best weights' headline metric on all validation images, 0..1: detect/obb mAP50; classify top-1 (share
   * of images whose top class is their class); segment mIoU (mean over object classes of the pixel IoU,
   * background excluded). Null below Limits.labeledForAccuracy labeled images or unless succeeded.
   */
  accuracy: NullNum,
  labeledImages: Type.Integer(),
  totalImages: Type.Integer(),
  /** Label kinds in the snapshot. */
  labelKinds: Type.Integer(),
  params: Type.Record(Type.String(), ParamValue),
  /** The model's dataVersion the snapshot froze; older than the model's means outdated (9002). */
  dataVersion: Type.Integer(),
  /** ISO 8601; start is when it was queued. */
  startedAt: Type.String(),
  endedAt: NullStr,
  durationS: NullNum,
  /** Latest epoch seen and the planned total; eta in seconds while training. */
  epoch: Type.Integer(),
  epochs: Type.Integer(),
  etaS: NullNum,
  /**
   * Engine summary when done (SPEC §3 model info: precision, recall, f1, times, sizes) with the task's metrics:
   * detect/obb mAP50, mAP50_95; classify top1, accuracy (= top1), top5 (more than 5 classes), multi_label;
   * segment mIoU, dice, pixel_accuracy, overlap_mask; ocr char_acc, line_acc, ned, and when a zero-shot reader
   * ran on the same validation crops (engine ocr/baseline.py) baseline_char_acc, baseline_line_acc, baseline_reader
   * (e.g. "tesseract 5.3.0"), shown on /model against char_acc.
   */
  summary: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  /** Why it failed, in words the user can act on. */
  error: NullStr,
  hasWeights: Type.Boolean(),
  /** Failed with its last epoch's checkpoint kept: POST …/resume continues from it (delivery.ts ResumePaths). */
  resumable: Type.Boolean(),
  /** Whether the succeeded result is usable, with advice (TrainingVerdict); null unless succeeded with a summary. */
  verdict: Type.Optional(Type.Union([TrainingVerdict, Type.Null()])),
  /** The agent run that trained this version (issue 35; its log says why); null for a training the user started. */
  agentId: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
});
export type TrainingData = Static<typeof TrainingData>;

export const TrainingEpochData = Type.Object({ epoch: Type.Integer(), epochs: Type.Integer(), metrics: Metrics, etaS: NullNum });
export type TrainingEpochData = Static<typeof TrainingEpochData>;

/**
 * The final evaluation of the best weights on all validation images (the engine's results.json `metrics`).
 * detect/obb: `per_class` {name: {AP50, AP50_95, instances}}, `pr_curve` {recall[], precision[]},
 * `confusion_matrix` (rows predicted, columns true, last = background).
 * classify: `per_class` {name: {precision, recall, f1, images}}, no pr_curve, `confusion_matrix` (rows
 * predicted, columns true, no background row or column).
 * segment: `per_class` {name: {IoU, dice, precision, recall, pixels}}, no pr_curve, no confusion matrix.
 * Null until the training succeeded.
 */
export const TrainingEvaluation = Type.Object({
  per_class: Type.Record(Type.String(), Type.Unknown()),
  pr_curve: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  confusion_matrix: Type.Union([Type.Array(Type.Array(Type.Number())), Type.Null()]),
});
export type TrainingEvaluation = Static<typeof TrainingEvaluation>;

export const TrainingDetailData = Type.Object({
  ...TrainingData.properties,
  history: Type.Array(TrainingEpochData),
  evaluation: Type.Union([TrainingEvaluation, Type.Null()]),
});
export type TrainingDetailData = Static<typeof TrainingDetailData>;

export const TrainingListData = Type.Object({ items: Type.Array(TrainingData), total: Type.Integer() });
export type TrainingListData = Static<typeof TrainingListData>;

/** SSE `progress` data: an epoch (with metrics) or a phase change (metrics empty). */
export interface TrainingProgressEvent {
  phase: TrainingPhase;
  epoch: number;
  epochs: number;
  metrics: Record<string, unknown>;
  etaS: number | null;
}
/** SSE `state` data. */
export interface TrainingStateEvent {
  status: (typeof TrainingStatuses)[number];
  error: string | null;
}
