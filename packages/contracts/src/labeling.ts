import { Type, type Static } from 'typebox';
import { Geometry } from './datasets.js';

/**
 * Labeling studio (SPEC §2 /mark per model type, first-use guides, shortcut keys; §3 annotation box; §4 test
 * boxes; §5 labels, minimum area, unfinished drawing).
 *
 * Saving is optimistic: the client sends the version it started from; a save against an older version answers
 * annotationConflict (another tab or user saved first) and the client reloads. Every accepted change raises the
 * model's dataVersion, which trainings record; a training older than the data is outdated (9002 on test and
 * download).
 */
export const LabelingPaths = {
  /** GET → ImageAnnotationsData (DatasetPaths.annotations); PUT AnnotationsSaveBody → ImageAnnotationsData. */
  annotations: '/api/models/:modelId/images/:imageId/annotations',
  /** PUT ImageClassBody → ImageClassData: classification models, one label per image (null clears it). */
  imageClass: '/api/models/:modelId/images/:imageId/class',
  /**
   * PUT ImageClassesBody → ImageClassesData: multi-label classification models, the image's whole set of
   * classes (classModeMismatch on a single-label model, and imageClass on a multi-label one).
   */
  imageClasses: '/api/models/:modelId/images/:imageId/classes',
  /**
   * PUT ClassificationModeBody → ClassificationModeData: one class per image or several. Switching to one class
   * refuses (multiLabelInUse, naming images) while an image holds more than one.
   */
  classificationMode: '/api/models/:modelId/classification-mode',
  /** GET → TestResultsData: the latest test's boxes for this image (drawn dashed). */
  testResults: '/api/models/:modelId/images/:imageId/test-results',
  /** POST ConvertTestResultsBody → ImageAnnotationsData. Only images in the test split (notTestData). */
  convertTestResults: '/api/models/:modelId/images/:imageId/test-results/convert',
  /** GET → LabelingSettingsData; PUT LabelingSettingsBody → LabelingSettingsData. Per model. */
  settings: '/api/models/:modelId/labeling-settings',
  /** GET → GuidesData (first-use guides this user has seen); POST GuideSeenBody → GuidesData. */
  guides: '/api/user/guides',
} as const;

/** Annotation limits. minAreaDefault is in image px²; the per-model setting may change it. */
export const LabelingLimits = {
  minAreaDefault: 4,
  minAreaMax: 1_000_000,
  /** Shapes on one image, and vertices in one polygon. */
  shapesPerImageMax: 20_000,
  polygonPointsMax: 10_000,
  ocrTextMax: 1000,
  /** Labels with a number key (SPEC §9: label shortcuts 1 to 9). */
  labelShortcutCount: 9,
} as const;

/** Guides shown once per user: one per labeling page kind. */
export const GuideIds = ['mark-detection', 'mark-segmentation', 'mark-ocr', 'mark-classification', 'mark-measure'] as const;
export type GuideId = (typeof GuideIds)[number];

export const NewAnnotation = Type.Object({ labelId: Type.Integer({ minimum: 1 }), geometry: Geometry });
export type NewAnnotation = Static<typeof NewAnnotation>;

/**
 * Replace the image's annotation set. `baseVersion` is the version the client loaded or last saved; when the
 * server's is newer the save is refused with annotationConflict and nothing changes. Shapes are clamped to the
 * image; one smaller than the model's minimum area, with an unknown label, or degenerate is refused with
 * annotationTooSmall / annotationInvalid and nothing changes.
 */
export const AnnotationsSaveBody = Type.Object({
  baseVersion: Type.Integer({ minimum: 0 }),
  annotations: Type.Array(NewAnnotation, { maxItems: LabelingLimits.shapesPerImageMax }),
});
export type AnnotationsSaveBody = Static<typeof AnnotationsSaveBody>;

export const ImageClassBody = Type.Object({ labelId: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]) });
export type ImageClassBody = Static<typeof ImageClassBody>;
export const ImageClassData = Type.Object({
  imageId: Type.Integer(),
  classLabelId: Type.Union([Type.Integer(), Type.Null()]),
  labeled: Type.Boolean(),
});
export type ImageClassData = Static<typeof ImageClassData>;

/**
 * A multi-label image's classes (SPEC §2 /mark classification, multi-label): the set (order ignored, duplicates
 * dropped), or `none` to confirm that the image shows none of the classes (a negative; it then trains with an
 * empty set). An empty set without `none` leaves the image unlabeled, like 0 (clear) does.
 */
export const ImageClassesBody = Type.Object({
  labelIds: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 1000 }),
  none: Type.Optional(Type.Boolean()),
});
export type ImageClassesBody = Static<typeof ImageClassesBody>;
export const ImageClassesData = Type.Object({
  imageId: Type.Integer(),
  /** Ascending label ids. */
  classLabelIds: Type.Array(Type.Integer()),
  /** Confirmed "none of these" (only with an empty set). */
  noClass: Type.Boolean(),
  /** At least one class, or confirmed none. */
  labeled: Type.Boolean(),
});
export type ImageClassesData = Static<typeof ImageClassesData>;

/**
 * Switching modes moves the classes: to multi-label each image's one class becomes its set; to single-label each
 * set of one becomes the class, and the confirmed negatives become unlabeled (single-label has no negatives).
 * Either way the data version rises (trainings become outdated).
 */
export const ClassificationModeBody = Type.Object({ multiLabel: Type.Boolean() });
export type ClassificationModeBody = Static<typeof ClassificationModeBody>;
export const ClassificationModeData = Type.Object({ multiLabel: Type.Boolean(), dataVersion: Type.Integer() });
export type ClassificationModeData = Static<typeof ClassificationModeData>;

/** One detection of the latest test on this image (SPEC §3 annotation box: confidence). */
export const TestResultData = Type.Object({
  id: Type.Integer(),
  labelId: Type.Integer(),
  geometry: Geometry,
  confidence: Type.Number(),
});
export type TestResultData = Static<typeof TestResultData>;
export const TestResultsData = Type.Object({
  imageId: Type.Integer(),
  /** Whether the image is in the test split: only then can results become annotations. */
  convertible: Type.Boolean(),
  results: Type.Array(TestResultData),
});
export type TestResultsData = Static<typeof TestResultsData>;

/** Convert some (ids) or all of the image's test results into annotations, added to the current set. */
export const ConvertTestResultsBody = Type.Object({
  baseVersion: Type.Integer({ minimum: 0 }),
  ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: LabelingLimits.shapesPerImageMax })),
});
export type ConvertTestResultsBody = Static<typeof ConvertTestResultsBody>;

export const LabelingSettingsData = Type.Object({
  /** Smallest shape area accepted, image px² (SPEC §5 minimum annotation area). */
  minArea: Type.Number(),
});
export type LabelingSettingsData = Static<typeof LabelingSettingsData>;
export const LabelingSettingsBody = Type.Object({
  minArea: Type.Number({ minimum: 0, maximum: LabelingLimits.minAreaMax }),
});
export type LabelingSettingsBody = Static<typeof LabelingSettingsBody>;

export const GuidesData = Type.Object({ seen: Type.Array(Type.Enum(GuideIds)) });
export type GuidesData = Static<typeof GuidesData>;
export const GuideSeenBody = Type.Object({ guide: Type.Enum(GuideIds) });
export type GuideSeenBody = Static<typeof GuideSeenBody>;

