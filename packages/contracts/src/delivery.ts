import { Type, type Static } from 'typebox';
import { TestStatuses, type TestStatus } from './models.js';
import { ParamValue } from './training.js';

/**
 * What follows a training (SPEC §2 /parameter, /test, /testImage, /download/*; §3 test settings, export,
 * model pack status; §4 test and export states; §7 modelPackStatus and download).
 */

// ---------------------------------------------------------------------------------------------------------
// Saved training parameters (/parameter)

export const ParameterPaths = {
  /**
   * GET → SavedParamsData. PUT SaveParamsBody → SavedParamsData (checked like a training start, one problem per
   * key: validation with data.problems). DELETE → SavedParamsData: reset to the defaults.
   * A training started without `params` uses the saved ones.
   */
  params: '/api/models/:modelId/parameters',
} as const;

export const SaveParamsBody = Type.Object({ params: Type.Record(Type.String(), ParamValue) });
export type SaveParamsBody = Static<typeof SaveParamsBody>;
/** `saved` holds only the keys the user set; the form shows TrainingParams defaults for the rest. */
export const SavedParamsData = Type.Object({ saved: Type.Record(Type.String(), ParamValue), updatedAt: Type.Union([Type.String(), Type.Null()]) });
export type SavedParamsData = Static<typeof SavedParamsData>;

// ---------------------------------------------------------------------------------------------------------
// Test runs (/test, /testImage)

export const TestPaths = {
  /** GET → TestRunListData (newest first); POST TestStartBody → TestRunData (queued). */
  list: '/api/models/:modelId/tests',
  /** GET → TestRunData with its summary (metrics when the images have ground truth). */
  one: '/api/models/:modelId/tests/:testId',
  /** POST → TestRunData. Stopping a test makes it fail (SPEC §4). */
  stop: '/api/models/:modelId/tests/:testId/stop',
  /** GET, text/event-stream: `progress` ({phase, done, total}) then a terminal `state` ({status, error}). */
  events: '/api/models/:modelId/tests/:testId/events',
  /**
   * GET ?filter=all|withResults|noResults|errors&page&pageSize → TestImagesData: the run's images with their
   * predictions, ground truth and false positives/negatives (IoU ≥ 0.5, same label).
   */
  images: '/api/models/:modelId/tests/:testId/images',
} as const;

export const TestParamsPath = Type.Object({ modelId: Type.Integer({ minimum: 1 }), testId: Type.Integer({ minimum: 1 }) });
export type TestParamsPath = Static<typeof TestParamsPath>;

export const TtaModes = ['off', 'hflip', 'flips', 'dihedral'] as const;
export type TtaMode = (typeof TtaModes)[number];
/**
 * The tasks whose views average (engine/loupe_engine/tta.py): boxes per anchor (a rotated box as its centre and
 * shape matrix), classes per image, masks per pixel. Not text: a mirrored line is not text.
 */
export const TtaTasks: readonly string[] = ['detect', 'obb', 'classify', 'segment'];

/** SPEC §3 test settings. */
export const TestSettings = Type.Object({
  conf: Type.Number({ minimum: 0, maximum: 1, default: 0.25 }),
  /** NMS IoU: 0.6 removes the same-class near-duplicates 0.7 kept (engine/BENCHMARKS.md, "Run 33, and the NMS IoU"). */
  iou: Type.Number({ minimum: 0, maximum: 1, default: 0.6 }),
  /** FP16: honoured on CUDA; on CPU the engine says so and tests in float32. */
  half: Type.Boolean({ default: false }),
  agnostic: Type.Boolean({ default: false }),
  /**
   * Test-time augmentation (TtaTasks only, a Loupe addition): the image in 1, 2, 4 or 8 views (flips, and 90°
   * turns), a detector's boxes (rotated ones too) and scores averaged per anchor, a classifier's probabilities per
   * image, a segmenter's per pixel. Each view
   * costs one more inference; the exported model carries it too (engine/loupe_engine/tta.py).
   */
  tta: Type.Enum(TtaModes, { default: 'off' }),
  // Only these keys: the settings travel into the engine's job spec, whose other keys are file paths.
}, { additionalProperties: false });
export type TestSettings = Static<typeof TestSettings>;
export const TestSettingsDefaults: TestSettings = { conf: 0.25, iou: 0.6, half: false, agnostic: false, tta: 'off' };

/** Stored test settings (a JSON text), with the defaults of settings added since they were stored. */
export function parseTestSettings(json: string): TestSettings {
  const stored = JSON.parse(json) as Partial<TestSettings>;
  // The known keys only, whatever a row holds: the result is written into the engine's job spec.
  const out: Record<string, unknown> = { ...TestSettingsDefaults };
  for (const key of Object.keys(TestSettingsDefaults)) if (key in stored) out[key] = stored[key as keyof TestSettings];
  return out as TestSettings;
}

/** Which images: the test split, or chosen images (e.g. ones uploaded for testing at /testImage). */
export const TestSources = ['testSplit', 'images'] as const;
export type TestSource = (typeof TestSources)[number];
export const TestStartBody = Type.Object({
  /** A succeeded training of this model; default: the model's default version (versions.ts), else the latest succeeded one. */
  trainingId: Type.Optional(Type.Integer({ minimum: 1 })),
  source: Type.Optional(Type.Enum(TestSources)),
  imageIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 10000 })),
  // No other keys (the server's validator drops them): the settings go into the engine's job spec.
  settings: Type.Optional(Type.Partial(TestSettings, { additionalProperties: false })),
});
export type TestStartBody = Static<typeof TestStartBody>;

export const TestRunData = Type.Object({
  id: Type.Integer(),
  modelId: Type.Integer(),
  trainingId: Type.Integer(),
  /** The training's version, "v1"… */
  version: Type.String(),
  status: Type.Enum(TestStatuses),
  source: Type.Enum(TestSources),
  settings: TestSettings,
  imageCount: Type.Integer(),
  /** Images done so far while testing. */
  done: Type.Integer(),
  /**
   * Engine summary: images, inference_ms, fps, and with ground truth the task's metrics (TrainingData.task).
   * detect/obb: detections; precision, recall, f1, mAP50, mAP50_95, per_class, confusion_matrix.
   * classify: top1 (= accuracy), top5 (more than 5 classes), macro precision/recall/f1, per_class {precision,
   * recall, f1, images}, confusion_matrix (rows predicted, columns true).
   * segment: instances; mIoU, dice (= f1), pixel precision/recall, pixel_accuracy, background_iou, per_class
   * {IoU, dice, precision, recall, pixels}.
   */
  summary: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  /**
   * Totals over the run's images: true positives, false positives, false negatives. Classification counts
   * images: a right class is one tp, a wrong one an fp (the predicted class) and an fn (the true class).
   */
  tp: Type.Integer(),
  fp: Type.Integer(),
  fn: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
});
export type TestRunData = Static<typeof TestRunData>;
export const TestRunListData = Type.Object({ items: Type.Array(TestRunData), total: Type.Integer() });
export type TestRunListData = Static<typeof TestRunListData>;

export const TestImageFilters = ['all', 'withResults', 'noResults', 'errors'] as const;
export type TestImageFilter = (typeof TestImageFilters)[number];
export const TestImagesQuery = Type.Object({
  filter: Type.Optional(Type.Enum(TestImageFilters)),
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 24 })),
});
export type TestImagesQuery = Static<typeof TestImagesQuery>;

const Box = Type.Object({
  labelId: Type.Integer(),
  /**
   * Same geometry as annotations (labeling.ts Geometry: box / rbox / polygon). Segmentation: each predicted
   * instance (a connected region of one class) as its outline polygon, matched to a ground-truth shape of its
   * label by mask IoU >= 0.5.
   */
  geometry: Type.Unknown(),
  confidence: Type.Optional(Type.Number()),
  /** Predictions: matched a ground-truth box (true positive) or not (false positive). GT: found or missed (false negative). */
  matched: Type.Boolean(),
});
/**
 * One image's class in a classification run: the top class and its probability (softmax), every class's
 * probability by label id, and the image's own class when the run started (null: not labelled, nothing to compare).
 */
export const ClassResult = Type.Object({
  labelId: Type.Integer(),
  confidence: Type.Number(),
  scores: Type.Record(Type.String(), Type.Number()),
  truthLabelId: Type.Union([Type.Integer(), Type.Null()]),
  /** Null without a true class. */
  correct: Type.Union([Type.Boolean(), Type.Null()]),
  /**
   * Multi-label runs only (then labelId/confidence are the most probable class, truthLabelId is null and
   * correct means the predicted set equals the true set): the classes whose probability reaches the test's conf,
   * and the image's own classes when the run started (null: not labelled; [] a confirmed negative).
   */
  multiLabel: Type.Optional(Type.Boolean()),
  labelIds: Type.Optional(Type.Array(Type.Integer())),
  truthLabelIds: Type.Optional(Type.Union([Type.Array(Type.Integer()), Type.Null()])),
});
export type ClassResult = Static<typeof ClassResult>;
export const TestImageData = Type.Object({
  imageId: Type.Integer(),
  name: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
  thumbUrl: Type.String(),
  imageUrl: Type.String(),
  /** Detection and segmentation runs; empty for classification (see `classification`). */
  predictions: Type.Array(Box),
  groundTruth: Type.Array(Box),
  /** Classification runs: the image's predicted class; null for the other model types. */
  classification: Type.Union([ClassResult, Type.Null()]),
  tp: Type.Integer(),
  fp: Type.Integer(),
  fn: Type.Integer(),
});
export type TestImageData = Static<typeof TestImageData>;
export const TestImagesData = Type.Object({ items: Type.Array(TestImageData), total: Type.Integer() });
export type TestImagesData = Static<typeof TestImagesData>;

/** SSE `progress` of a test. */
export interface TestProgressEvent {
  phase: 'queued' | 'preparing' | 'testing';
  done: number;
  total: number;
}
/** SSE `state` of a test: sent on connect and on every change; the stream ends after a terminal one. */
export interface TestStateEvent {
  status: TestStatus;
  error: string | null;
}

// ---------------------------------------------------------------------------------------------------------
// Export and download (/download/downloadModel, /download/downloadSDK; SPEC §7)

export const ExportPaths = {
  /**
   * POST ExportStartBody → PackStatusData (packing). Starts exporting the chosen training (8006, 8008, 9002;
   * exportFailed with data.field naming the bad input; exportInProgress while another export of the model runs,
   * unless it is the same request, which answers that pack).
   */
  pack: '/api/train/modelPack',
  /**
   * GET ?modelId&kind → PackStatusData of the model's latest pack of that kind (SPEC §7: packStatus, id,
   * inputW, inputH, modelUrl). modelUrl is null with local storage: the file comes from `download`.
   */
  status: '/api/train/modelPackStatus',
  /** GET → the file (model: .onnx; sdk: .zip), as an attachment. 8008 without download permission. */
  download: '/api/train/download/:id/:inputW/:inputH',
} as const;

export const PackKinds = ['model', 'sdk'] as const;
export type PackKind = (typeof PackKinds)[number];
/** SDK types (SPEC §9): CPU (onnxruntime), NVIDIA 10/20 series, NVIDIA 30 series (CUDA execution provider). */
export const SdkTypes = ['cpu', 'gpu1020', 'gpu30'] as const;
export type SdkType = (typeof SdkTypes)[number];
/** SPEC §4 export states; `none` = not exported. */
export const PackStatuses = ['none', 'packing', 'success', 'failed'] as const;
export type PackStatus = (typeof PackStatuses)[number];

export const ExportStartBody = Type.Object({
  modelId: Type.Integer({ minimum: 1 }),
  /** Default: the latest succeeded training. */
  trainingId: Type.Optional(Type.Integer({ minimum: 1 })),
  kind: Type.Enum(PackKinds),
  /** Camera resolution; each > 0 (SPEC §5). The model input is the training's image size, letterboxed. */
  inputW: Type.Integer(),
  inputH: Type.Integer(),
  maxDet: Type.Integer(),
  /** Required (SPEC §5: an SDK type must be chosen). */
  sdkType: Type.Optional(Type.Enum(SdkTypes)),
  /** Rotated-box type: must match what the training learned. */
  rotated: Type.Boolean(),
});
export type ExportStartBody = Static<typeof ExportStartBody>;
export const PackStatusQuery = Type.Object({ modelId: Type.Integer({ minimum: 1 }), kind: Type.Optional(Type.Enum(PackKinds)) });
export type PackStatusQuery = Static<typeof PackStatusQuery>;

export const PackStatusData = Type.Object({
  packStatus: Type.Enum(PackStatuses),
  /** The pack's id (null when none). */
  id: Type.Union([Type.Integer(), Type.Null()]),
  inputW: Type.Union([Type.Integer(), Type.Null()]),
  inputH: Type.Union([Type.Integer(), Type.Null()]),
  modelUrl: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Enum(PackKinds),
  trainingId: Type.Union([Type.Integer(), Type.Null()]),
  version: Type.Union([Type.String(), Type.Null()]),
  maxDet: Type.Union([Type.Integer(), Type.Null()]),
  sdkType: Type.Union([Type.Enum(SdkTypes), Type.Null()]),
  rotated: Type.Boolean(),
  fileName: Type.Union([Type.String(), Type.Null()]),
  bytes: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type PackStatusData = Static<typeof PackStatusData>;
export const DownloadParams = Type.Object({ id: Type.Integer({ minimum: 1 }), inputW: Type.Integer({ minimum: 1 }), inputH: Type.Integer({ minimum: 1 }) });
export type DownloadParams = Static<typeof DownloadParams>;

// ---------------------------------------------------------------------------------------------------------
// Resume (issue 6: a training the server died under resumes from its last checkpoint when the user asks)

export const ResumePaths = {
  /** POST → TrainingData (queued again, continuing from the last epoch's checkpoint). trainingNotResumable otherwise. */
  resume: '/api/models/:modelId/trainings/:trainingId/resume',
} as const;
