import { Type, type Static } from 'typebox';
import { Limits } from './limits.js';
import type { ModelType } from './menus.js';

/**
 * Gallery, labels, annotations and dataset export (SPEC §2 /gallery, /download/downloadImage; §3 image,
 * label; §5 images, folder upload, annotation ZIP, labels, auto split).
 *
 * Uploads are multipart/form-data with one or more parts named `files` (ImageUploadField). Each call answers
 * UploadData: one UploadResult per file, accepted or refused with the catalogue code and message, so the web
 * can show a summary and retry refused files one at a time. A request over Limits.uploadMaxBytes is refused
 * as a whole (uploadTooLarge) and stores nothing.
 */
export const DatasetPaths = {
  /** GET ImageListQuery → ImageListData. */
  images: '/api/models/:modelId/images',
  /** POST multipart `files`: images only, or unclassified images of a classification model. */
  upload: '/api/models/:modelId/images/upload',
  /**
   * POST multipart `files` (classification models): each part's filename is its relative path
   * `<folder>/<file>` (FormData.append('files', file, file.webkitRelativePath minus any parent folder)).
   * The folder becomes the label (created when missing); nested folders are refused per file.
   */
  uploadFolders: '/api/models/:modelId/images/folders',
  /**
   * POST multipart `file`: one annotation ZIP (COCO JSON, Pascal VOC XML, LabelMe / X-AnyLabeling JSON, YOLO
   * txt with a class list, DOTA txt, CVAT XML; classification: class folders, CSV/JSON lists, CVAT tags),
   * optionally with its images (added when the model lacks them). Matched to images by name, path or stem →
   * AnnotationImportData with a per-file report (apps/server/src/services/formats/README.md).
   */
  uploadAnnotations: '/api/models/:modelId/images/annotations',
  /** POST ImageIdsBody & { starred } → ImageChangeData. */
  star: '/api/models/:modelId/images/star',
  /** POST ImageIdsBody → ImageChangeData (single or bulk delete). */
  remove: '/api/models/:modelId/images/delete',
  /** POST SplitSetBody → ImageChangeData (manual split, bulk). */
  split: '/api/models/:modelId/images/split',
  /** POST AutoSplitBody → AutoSplitData. */
  autoSplit: '/api/models/:modelId/images/auto-split',
  /**
   * GET the original bytes. Signed in by X-Token, or (for <img src> and download links, which cannot send
   * headers) by the HttpOnly SameSite=Strict files cookie that every authenticated API answer sets. Never by a
   * query token.
   */
  original: '/api/models/:modelId/images/:imageId/original',
  /** GET a JPEG thumbnail (Limits.thumbnailPx on the long side). Token as for original. */
  thumbnail: '/api/models/:modelId/images/:imageId/thumbnail',
  /** GET the image's current annotations → ImageAnnotationsData. */
  annotations: '/api/models/:modelId/images/:imageId/annotations',
  /** GET LabelData[]; POST LabelCreateBody → LabelData. */
  labels: '/api/models/:modelId/labels',
  /** PUT LabelUpdateBody → LabelData (rename, recolour); DELETE removes the label and its annotations. */
  label: '/api/models/:modelId/labels/:labelId',
  /** GET ?format=coco|voc|yolo|labelme&split= → a streamed ZIP (images + annotations). Token as for original. */
  exportImages: '/api/models/:modelId/download/images',
} as const;

export const ImageUploadField = 'files';
export const AnnotationUploadField = 'file';

/** Gallery filters (SPEC §3 image status). Test filters work off columns that test runs fill. */
export const ImageFilters = [
  'all',
  'labeled',
  'unlabeled',
  'starred',
  'unstarred',
  'tested',
  'untested',
  'unprocessed',
  'testedWithResults',
  'testedNoResults',
] as const;
export type ImageFilter = (typeof ImageFilters)[number];

/** Dataset splits (SPEC §3); `none` is the raw, unassigned state. */
export const Splits = ['train', 'valid', 'test', 'none'] as const;
export type Split = (typeof Splits)[number];

/** Test state of an image: untested (in no test run), unprocessed (queued in a run), tested. */
export const ImageTestStates = ['untested', 'unprocessed', 'tested'] as const;
export type ImageTestState = (typeof ImageTestStates)[number];

/**
 * Annotation formats read and written (issue 33). `yolo` covers Ultralytics' detection, segmentation and OBB
 * label lines (a rotated box is written as an OBB line); `dota` is DOTA v1 text (8 corners, class,
 * difficulty); `cvat` is "CVAT for images" XML 1.1; `labelstudio` is Label Studio's JSON export (tasks with
 * their results, in percent); `datumaro` is Datumaro's JSON (CVAT's and OpenVINO's dataset format). Rotated boxes travel as rotated boxes wherever the format
 * has them (YOLO OBB lines, DOTA, CVAT `rotation`, LabelMe `rotation`, VOC `robndbox`, COCO's `rbox` extension).
 */
export const ExportFormats = ['coco', 'voc', 'yolo', 'labelme', 'dota', 'cvat', 'labelstudio', 'datumaro'] as const;
export type ExportFormat = (typeof ExportFormats)[number];
/**
 * The formats a model type's export offers: those that hold its shapes without loss. DOTA has only
 * four-corner boxes and no text (detection); YOLO has no text (not OCR). Classification exports class folders
 * whatever the format.
 */
export function exportFormatsFor(type: ModelType | undefined): readonly ExportFormat[] {
  if (type === 'DETECTION') return ExportFormats;
  if (type === 'OCR') return ['coco', 'voc', 'labelme', 'cvat', 'labelstudio', 'datumaro'];
  return ['coco', 'voc', 'yolo', 'labelme', 'cvat', 'labelstudio', 'datumaro'];
}

/** What an annotation ZIP turned out to be; `folders` and `list` are classification imports (class folders, a CSV/JSON list). */
export const AnnotationFormats = [...ExportFormats, 'folders', 'list'] as const;
export type AnnotationFormat = (typeof AnnotationFormats)[number];

/** Gallery types, as read from the bytes (never the file name). Web-only upload pages accept the first four. */
export const ImageKinds = ['jpeg', 'png', 'bmp', 'mpo', 'tiff', 'webp'] as const;
export type ImageKind = (typeof ImageKinds)[number];
export const ImageExtensions = ['.jpg', '.jpeg', '.png', '.bmp', '.mpo', '.tif', '.tiff', '.webp'] as const;

const Str = Type.String();
const Id = Type.Integer({ minimum: 1 });
const Num = Type.Number();
const Text = Type.Optional(Type.String({ maxLength: 1000 }));

/** Axis-aligned box, image pixels, top-left (x1,y1) to bottom-right (x2,y2). */
export const BoxGeometry = Type.Object({ kind: Type.Literal('box'), x1: Num, y1: Num, x2: Num, y2: Num, text: Text });
/** Rotated box: centre, size, angle in degrees (clockwise, image y axis down). */
export const RBoxGeometry = Type.Object({
  kind: Type.Literal('rbox'),
  cx: Num,
  cy: Num,
  w: Num,
  h: Num,
  angle: Num,
  text: Text,
});
/** Polygon, at least 3 points [[x,y],…]. */
export const PolygonGeometry = Type.Object({
  kind: Type.Literal('polygon'),
  points: Type.Array(Type.Tuple([Num, Num]), { minItems: 3 }),
  text: Text,
});
export const Geometry = Type.Union([BoxGeometry, RBoxGeometry, PolygonGeometry]);
export type Geometry = Static<typeof Geometry>;
export type BoxGeometry = Static<typeof BoxGeometry>;
export type RBoxGeometry = Static<typeof RBoxGeometry>;
export type PolygonGeometry = Static<typeof PolygonGeometry>;

export const ImageParams = Type.Object({ modelId: Id, imageId: Id });
export type ImageParams = Static<typeof ImageParams>;
export const LabelParams = Type.Object({ modelId: Id, labelId: Id });
export type LabelParams = Static<typeof LabelParams>;

/**
 * GET images. Newest first. Paging by keyset (`after` = the last id of the previous page, answered as
 * nextAfter) or by `page` (1-based, offset); pageSize ≤ 200.
 */
export const ImageListQuery = Type.Object({
  filter: Type.Optional(Type.Enum(ImageFilters)),
  split: Type.Optional(Type.Enum(Splits)),
  /** Label id: images with an annotation or class of this label. */
  labelId: Type.Optional(Id),
  /** File name contains (case-insensitive). */
  name: Type.Optional(Type.String({ maxLength: Limits.textMax })),
  after: Type.Optional(Id),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});
export type ImageListQuery = Static<typeof ImageListQuery>;

export const ImageData = Type.Object({
  id: Type.Integer(),
  name: Str,
  kind: Type.Enum(ImageKinds),
  width: Type.Integer(),
  height: Type.Integer(),
  bytes: Type.Integer(),
  split: Type.Enum(Splits),
  starred: Type.Boolean(),
  labeled: Type.Boolean(),
  annotationCount: Type.Integer(),
  /** Classification: the image's class label; else null. */
  classLabelId: Type.Union([Type.Integer(), Type.Null()]),
  /**
   * Detection, rotated-box, segmentation, measurement and OCR models: the image's current annotations (label and
   * geometry in image pixels), at most Limits.galleryShapesMax of them, so a thumbnail can draw its labels.
   */
  shapes: Type.Optional(Type.Array(Type.Object({ labelId: Type.Integer(), geometry: Geometry }))),
  /** True when the image has more annotations than `shapes` carries. */
  shapesTruncated: Type.Optional(Type.Boolean()),
  /** Multi-label classification models only: the image's classes (ascending ids) and a confirmed "none of these". */
  classLabelIds: Type.Optional(Type.Array(Type.Integer())),
  noClass: Type.Optional(Type.Boolean()),
  testState: Type.Enum(ImageTestStates),
  /** Results of the last test (boxes/classes found); null until tested. */
  testResultCount: Type.Union([Type.Integer(), Type.Null()]),
  /** ISO 8601 upload time. */
  uploadedAt: Str,
  /** Relative URLs, usable as they are in <img src> (the files cookie signs them in). */
  originalUrl: Str,
  thumbnailUrl: Str,
});
export type ImageData = Static<typeof ImageData>;

export const ImageListData = Type.Object({
  items: Type.Array(ImageData),
  /** Count of images matching the filters (all pages). */
  total: Type.Integer(),
  /** Pass as `after` for the next page; null on the last page. */
  nextAfter: Type.Union([Type.Integer(), Type.Null()]),
});
export type ImageListData = Static<typeof ImageListData>;

export const UploadStatuses = ['accepted', 'refused'] as const;
export const UploadResult = Type.Object({
  /** File name as sent (for folders: `<folder>/<file>`). */
  name: Str,
  status: Type.Enum(UploadStatuses),
  /** Set when accepted. */
  imageId: Type.Optional(Type.Integer()),
  /** Folder uploads: the label the folder became. */
  labelId: Type.Optional(Type.Integer()),
  /** Catalogue code and message when refused (e.g. duplicateImage, onlyImageTypes, fileCheckFailed). */
  code: Type.Optional(Type.Integer()),
  message: Type.Optional(Str),
});
export type UploadResult = Static<typeof UploadResult>;

export const UploadData = Type.Object({
  accepted: Type.Integer(),
  refused: Type.Integer(),
  results: Type.Array(UploadResult),
});
export type UploadData = Static<typeof UploadData>;

/** Shapes of one file left out or changed for one reason, counted, with the sentence in the caller's language. */
export const ImportReasonCount = Type.Object({
  /** Stable key (ImportReasons), for tests and for grouping on the client. */
  reason: Str,
  count: Type.Integer(),
  /** "3 point shapes: points are not a shape Loupe trains on". */
  message: Str,
});
export type ImportReasonCount = Static<typeof ImportReasonCount>;

/** What one annotation file gave (issue 33, no silent loss): shapes taken, and every shape left out by reason. */
export const ImportFileReport = Type.Object({
  /** Path inside the ZIP. */
  file: Str,
  format: Type.Enum(AnnotationFormats),
  /** Shapes stored from this file. */
  taken: Type.Integer(),
  /** Shapes left out, grouped by reason. */
  skipped: Type.Array(ImportReasonCount),
  /** Shapes stored in another kind than the file's (a polygon as a box for a detection model…), by reason. */
  converted: Type.Array(ImportReasonCount),
});
export type ImportFileReport = Static<typeof ImportFileReport>;

export const AnnotationImportData = Type.Object({
  format: Type.Enum(AnnotationFormats),
  /** Images whose annotations were replaced by the ZIP's. */
  imagesMatched: Type.Integer(),
  /** Images the ZIP itself carried (image files, LabelMe `imageData`) that were added to the gallery. */
  imagesAdded: Type.Integer(),
  annotations: Type.Integer(),
  /** Shapes in the files that were not stored (the sum of every file's `skipped`). */
  skipped: Type.Integer(),
  labelsCreated: Type.Array(Str),
  /** Per annotation file or image entry that could not be used (no matching image, unreadable file…). */
  results: Type.Array(UploadResult),
  /** Per annotation file: taken, skipped and converted shapes (the report the wizard shows and offers as a download). */
  report: Type.Array(ImportFileReport),
});
export type AnnotationImportData = Static<typeof AnnotationImportData>;

export const ImageIdsBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 10_000 }) });
export type ImageIdsBody = Static<typeof ImageIdsBody>;
export const StarBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 10_000 }), starred: Type.Boolean() });
export type StarBody = Static<typeof StarBody>;
export const SplitSetBody = Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 10_000 }), split: Type.Enum(Splits) });
export type SplitSetBody = Static<typeof SplitSetBody>;
export const ImageChangeData = Type.Object({ changed: Type.Integer() });
export type ImageChangeData = Static<typeof ImageChangeData>;

/**
 * POST auto-split. `confirm` must be true (confirmationRequired). Ratios each 0–1 and summing to 1
 * (autoSplitRatios). Every label gets at least one train and one valid image, or autoSplitLabelTooFew.
 */
export const AutoSplitBody = Type.Object({
  confirm: Type.Boolean(),
  ratios: Type.Object({ train: Num, valid: Num, test: Num }),
  /** Only labeled images are split by default; unlabeled ones stay `none`. */
  includeUnlabeled: Type.Optional(Type.Boolean()),
});
export type AutoSplitBody = Static<typeof AutoSplitBody>;
export const AutoSplitData = Type.Object({ train: Type.Integer(), valid: Type.Integer(), test: Type.Integer() });
export type AutoSplitData = Static<typeof AutoSplitData>;

/** Label colour: #rrggbb. */
export const ColorPattern = '^#[0-9a-fA-F]{6}$';
export const LabelCreateBody = Type.Object({ name: Str, color: Type.Optional(Type.String({ pattern: ColorPattern })) });
export type LabelCreateBody = Static<typeof LabelCreateBody>;
export const LabelUpdateBody = Type.Object({
  name: Type.Optional(Str),
  color: Type.Optional(Type.String({ pattern: ColorPattern })),
});
export type LabelUpdateBody = Static<typeof LabelUpdateBody>;
export const LabelData = Type.Object({
  id: Type.Integer(),
  name: Str,
  color: Str,
  /** Images carrying this label (annotation or class). */
  imageCount: Type.Integer(),
});
export type LabelData = Static<typeof LabelData>;

export const AnnotationData = Type.Object({
  id: Type.Integer(),
  labelId: Type.Integer(),
  geometry: Geometry,
});
export type AnnotationData = Static<typeof AnnotationData>;
export const ImageAnnotationsData = Type.Object({
  imageId: Type.Integer(),
  /** Increases each time the image's annotation set is replaced. */
  version: Type.Integer(),
  annotations: Type.Array(AnnotationData),
});
export type ImageAnnotationsData = Static<typeof ImageAnnotationsData>;

export const ExportQuery = Type.Object({
  format: Type.Enum(ExportFormats),
  split: Type.Optional(Type.Enum(Splits)),
});
export type ExportQuery = Static<typeof ExportQuery>;
export const FileQuery = Type.Object({});
