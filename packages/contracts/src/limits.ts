/** Business constants and limits (SPEC §9). Declared once; server rules and web forms derive from these. */
export const LANGUAGES = ['en', 'zh', 'de', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

export const Limits = {
  passwordMin: 6,
  passwordMax: 32,
  textMax: 100,
  /** Registration password: letters and digits only (SPEC §5). */
  passwordPattern: '^[A-Za-z0-9]+$',
  emailPattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
  /** International or local phone: optional +, digits, spaces, dashes; 6 to 20 digits overall. */
  phonePattern: '^\\+?[0-9][0-9 \\-]{5,19}$',
  /** Landline: optional country code, optional area code (bracketed or not), local number; 6 to 16 digits. */
  landlinePattern: '^(?=(?:\\D*\\d){6,16}\\D*$)(\\+?[0-9]{1,4}[ \\-]?)?(\\(?[0-9]{2,5}\\)?[ \\-]?)?[0-9]{3,8}([ \\-]?[0-9]{1,6})?$',
  verificationCodePattern: '^[0-9]{6}$',
  verificationCodeTtlS: 600,
  codeResendS: 60,
  activationTtlS: 24 * 3600,
  resetTtlS: 3600,
  /** A registration not finished (activated) within this time must start again. */
  registrationTtlS: 7 * 24 * 3600,
  reloginDialogThrottleMs: 10_000,
  mobileBreakpointPx: 992,
  submenuShowTimeoutMs: 200,
  messageDurationMs: 1500,
  warningDurationMs: 2000,
  warningOffsetPx: 40,
  imageMaxBytes: 100 * 1024 * 1024,
  uploadMaxBytes: 500 * 1024 * 1024,
  aspectRatioMax: 6,
  imagesRecommended: 30,
  labeledForAccuracy: 30,
  accuracyTrendCount: 10,
  canvasWidth: 1200,
  canvasHeight: 768,
  canvasScale: 100,
  scaleReference: { width: 1920, height: 1080 },
  publicFontReferenceHeight: 768,
  /** Gallery (SPEC §5, §9). Side limits and label count are defaults the server may override by env. */
  imageMinSidePx: 32,
  imageMaxSidePx: 16_384,
  labelMax: 100,
  modelNameMax: 100,
  modelNoteMax: 100,
  labelNameMax: 100,
  imageNameMax: 255,
  thumbnailPx: 256,
  /** Annotation ZIP: uncompressed total and per entry, and entry count (zip-bomb guards). */
  zipMaxUncompressedBytes: 1024 * 1024 * 1024,
  zipEntryMaxBytes: 100 * 1024 * 1024,
  zipMaxEntries: 50_000,
  /**
   * Decompression bombs and stalls (issue 30). An image's pixel count is read from its header and refused
   * above this before anything is decoded; BMPs are decoded on worker threads, never the event loop.
   */
  imageMaxPixels: 100_000_000,
  /** Files in one multipart upload (the web client sends folders in batches far below this). */
  uploadMaxFiles: 10_000,
  /**
   * One annotation file read from a ZIP (inflated bytes, counted as they come). JSON and XML are parsed on a
   * worker thread; this bounds what one file costs in memory and what comes back to the event loop.
   */
  // COCO files of real datasets reach tens of MB; coordinate arrays come back from the worker as transferred
  // typed arrays, so size costs the worker, not the event loop.
  annotationFileMaxBytes: 64 * 1024 * 1024,
  /** All annotation files of one ZIP together, as inflated (they are held in memory while parsed). */
  annotationFilesMaxBytes: 256 * 1024 * 1024,
  /** Nesting in an annotation file (VOC needs 4 levels, COCO and LabelMe 5). */
  annotationMaxDepth: 32,
  imageListPageSize: 50,
  imageListPageMax: 200,
  /** Annotations per image that a gallery list page carries for its thumbnail (ImageData.shapes). */
  galleryShapesMax: 100,
  /** Fair use of the job slots (issue 30): defaults the server may override by env (config.ts `fairUse`). */
  jobsPerAccount: 3,
  /** Wall-clock training hours by plan: priority 0 is the standard plan, a higher training priority the priority plan. */
  trainingHoursStandard: 12,
  trainingHoursPriority: 72,
  trainingEpochsMax: 1000,
  /** Largest training image size on a CPU host (a GPU host allows the engine's 4096). */
  trainingImgszCpu: 1280,
  /** Golden-sample measuring is a job; it is stopped after this many seconds. */
  goldenTimeoutS: 300,
} as const;

/** Roles (SPEC §6): '1' administrator, '0' user. */
export const Roles = { admin: '1', user: '0' } as const;
export type Role = (typeof Roles)[keyof typeof Roles];

/** Account review states (SPEC §4: under review until approved). */
export const AccountStatuses = ['unactivated', 'pending', 'approved', 'rejected'] as const;
export type AccountStatus = (typeof AccountStatuses)[number];
