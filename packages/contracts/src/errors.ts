/**
 * The error catalogue (SPEC §8). One row per code: the HTTP status class it travels with, the message key
 * in the `errors` namespace (locales/<lang>/errors.json) and the reaction the web client applies.
 * Codes of SPEC §8 keep their numbers; codes Loupe adds are grouped by area (1xxxx auth, 2xxxx input, ...).
 */
export type ErrorReaction =
  | 'message' // show the server's message
  | 'silent' // reject without showing anything
  | 'relogin' // "logged in elsewhere" dialog, at most once per 10 s, then sign out
  | 'toTrain' // message with a button to /train
  | 'toMark' // message with a button to /mark
  | 'toPosition' // message with a go-upload button to /position
  | 'toGallery' // message with a button to the dataset page
  | 'contactSales'; // message telling the user to contact sales

export interface ErrorDef {
  code: number;
  status: number;
  key: string;
  reaction: ErrorReaction;
}

const def = (code: number, status: number, key: string, reaction: ErrorReaction = 'message'): ErrorDef => ({
  code,
  status,
  key,
  reaction,
});

export const Errors = {
  // SPEC §8 codes
  loggedInElsewhere: def(99993, 401, 'loggedInElsewhere', 'relogin'),
  sessionInvalid: def(99990, 401, 'sessionInvalid', 'relogin'),
  silent: def(99991, 400, 'silent', 'silent'),
  annotationChanged: def(9002, 409, 'annotationChanged', 'toTrain'),
  positionUploadA: def(8206, 400, 'positionUpload', 'toPosition'),
  positionUploadB: def(8208, 400, 'positionUpload', 'toPosition'),
  noModelToTest: def(80066, 409, 'noModelToTest', 'toTrain'),
  noModelToDownload: def(8006, 409, 'noModelToDownload', 'toTrain'),
  noDownloadPermission: def(8008, 403, 'noDownloadPermission', 'contactSales'),
  noLabeledImages: def(8001, 409, 'noLabeledImages', 'toMark'),
  noImagesToTest: def(8005, 409, 'noImagesToTest', 'toGallery'),
  rejected: def(7304, 400, 'rejected'),

  // Generic
  internal: def(500, 500, 'internal'),
  validation: def(20001, 400, 'validation'),
  notFound: def(20004, 404, 'notFound'),
  forbidden: def(20003, 403, 'forbidden'),
  tooManyRequests: def(20029, 429, 'tooManyRequests'),
  fieldRequired: def(20010, 400, 'fieldRequired'),
  fieldTooLong: def(20011, 400, 'fieldTooLong'),
  nameCharacters: def(20041, 400, 'nameCharacters'),

  // Accounts and sessions
  badCredentials: def(10001, 401, 'badCredentials'),
  badCode: def(10002, 400, 'badCode'),
  useEmailLogin: def(10003, 400, 'useEmailLogin'),
  accountUnderReview: def(10004, 403, 'accountUnderReview'),
  accountNotActivated: def(10005, 403, 'accountNotActivated'),
  emailNotRegistered: def(10006, 404, 'emailNotRegistered'),
  emailRegistered: def(10007, 409, 'emailRegistered'),
  phoneRegistered: def(10008, 409, 'phoneRegistered'),
  phoneNotSupported: def(10009, 400, 'phoneNotSupported'),
  emailSendFailed: def(10010, 500, 'emailSendFailed'),
  activationInvalid: def(10011, 400, 'activationInvalid'),
  resetLinkInvalid: def(10012, 400, 'resetLinkInvalid'),
  registrationTooLong: def(10013, 400, 'registrationTooLong'),
  passwordsDoNotMatch: def(10014, 400, 'passwordsDoNotMatch'),
  passwordLength: def(10015, 400, 'passwordLength'),
  passwordChars: def(10016, 400, 'passwordChars'),
  emailFormat: def(10017, 400, 'emailFormat'),
  phoneFormat: def(10018, 400, 'phoneFormat'),
  codeResendTooSoon: def(10019, 429, 'codeResendTooSoon'),
  wrongOldPassword: def(10020, 400, 'wrongOldPassword'),
  accountRejected: def(10021, 403, 'accountRejected'),
  oidcNotConfigured: def(10022, 404, 'oidcNotConfigured'),
  oidcFailed: def(10023, 400, 'oidcFailed'),
  landlineFormat: def(10024, 400, 'landlineFormat'),
  notAuthenticated: def(10025, 401, 'notAuthenticated'),
  accountNotPending: def(10026, 409, 'accountNotPending'),
  passwordAlreadySet: def(10027, 409, 'passwordAlreadySet'),
  // Too many failed sign-ins for this account (issue 30 item 7): refused, even with the right password, until then.
  accountLocked: def(10041, 429, 'accountLocked'),
  // An outbox mail whose link was used, replaced by a newer mail or expired is not sent again (issue 31 item 1).
  mailLinkDead: def(10042, 409, 'mailLinkDead'),

  // Models, gallery, labels, annotations (3xxxx)
  modelNameExists: def(30001, 409, 'modelNameExists'),
  labelNameExists: def(30002, 409, 'labelNameExists'),
  labelCountExceeded: def(30003, 409, 'labelCountExceeded'),
  uploadFailed: def(30004, 400, 'uploadFailed'),
  folderUploadFailed: def(30005, 400, 'folderUploadFailed'),
  labelCreateFailed: def(30006, 400, 'labelCreateFailed'),
  fileCheckFailed: def(30007, 400, 'fileCheckFailed'),
  onlyImageTypes: def(30008, 400, 'onlyImageTypes'),
  imageTooLarge: def(30009, 413, 'imageTooLarge'),
  uploadTooLarge: def(30010, 413, 'uploadTooLarge'),
  noValidAnnotations: def(30011, 400, 'noValidAnnotations'),
  zipUnsafeEntry: def(30012, 400, 'zipUnsafeEntry'),
  zipTooLarge: def(30013, 413, 'zipTooLarge'),
  duplicateImage: def(30014, 409, 'duplicateImage'),
  aspectRatio: def(30015, 400, 'aspectRatio'),
  resolutionOutOfRange: def(30016, 400, 'resolutionOutOfRange'),
  autoSplitLabelTooFew: def(30017, 409, 'autoSplitLabelTooFew'),
  autoSplitNoImages: def(30018, 409, 'autoSplitNoImages'),
  autoSplitRatios: def(30019, 400, 'autoSplitRatios'),
  confirmationRequired: def(30020, 400, 'confirmationRequired'),
  annotationsBeforeImages: def(30021, 409, 'annotationsBeforeImages'),
  nestedFolder: def(30022, 400, 'nestedFolder'),
  notInFolder: def(30023, 400, 'notInFolder'),
  xmlDoctype: def(30024, 400, 'xmlDoctype'),
  annotationNoImage: def(30025, 400, 'annotationNoImage'),
  wrongModelType: def(30026, 400, 'wrongModelType'),
  zipInvalid: def(30027, 400, 'zipInvalid'),
  annotationInvalid: def(30028, 400, 'annotationInvalid'),
  autoSplitTestTooFew: def(30029, 409, 'autoSplitTestTooFew'),

  // Upload and annotation-file limits: decompression bombs, oversized or malformed files (3004x)
  imageTooManyPixels: def(30040, 413, 'imageTooManyPixels'),
  uploadTooManyFiles: def(30041, 413, 'uploadTooManyFiles'),
  zipTooManyEntries: def(30042, 413, 'zipTooManyEntries'),
  annotationFileTooLarge: def(30043, 413, 'annotationFileTooLarge'),
  annotationTooManyPoints: def(30044, 400, 'annotationTooManyPoints'),
  annotationTooManyShapes: def(30045, 400, 'annotationTooManyShapes'),
  annotationTooDeep: def(30046, 400, 'annotationTooDeep'),
  annotationBadField: def(30047, 400, 'annotationBadField'),

  // Labeling studio (3003x)
  annotationConflict: def(30030, 409, 'annotationConflict'),
  annotationTooSmall: def(30031, 400, 'annotationTooSmall'),
  notTestData: def(30032, 409, 'notTestData'),
  convertFailed: def(30033, 409, 'convertFailed'),
  shapeInvalid: def(30034, 400, 'shapeInvalid'),
  labelNotInModel: def(30035, 400, 'labelNotInModel'),
  multiLabelInUse: def(30036, 409, 'multiLabelInUse'),
  classModeMismatch: def(30037, 409, 'classModeMismatch'),

  // Trainings and jobs (4xxxx)
  ongoingTraining: def(40001, 409, 'ongoingTraining'),
  labelNeedsTrainValid: def(40002, 409, 'labelNeedsTrainValid', 'toMark'),
  trainingNotActive: def(40003, 409, 'trainingNotActive'),
  ongoingTesting: def(40004, 409, 'ongoingTesting'),
  testNotActive: def(40005, 409, 'testNotActive'),
  parameterSaveFailed: def(40006, 400, 'parameterSaveFailed'),
  parameterResetFailed: def(40007, 500, 'parameterResetFailed'),
  exportFailed: def(40008, 400, 'exportFailed'),
  trainingNotResumable: def(40009, 409, 'trainingNotResumable'),
  packNotReady: def(40010, 409, 'packNotReady'),
  exportInProgress: def(40011, 409, 'exportInProgress'),
  classesTooFew: def(40012, 409, 'classesTooFew', 'toMark'),
  ttaNotForTask: def(40013, 400, 'ttaNotForTask'),
  // An image of the training data was deleted while the training started (its file went before the snapshot held it).
  trainingDataChanged: def(40014, 409, 'trainingDataChanged'),
  // Pretrained weights (issue 30 item 1): `pretrained` names one of the caller's own succeeded versions.
  pretrainedNotFound: def(40030, 404, 'pretrainedNotFound'),
  pretrainedNoWeights: def(40031, 409, 'pretrainedNoWeights'),
  // Fair use of the job slots (issue 30 item 5)
  tooManyJobs: def(40050, 429, 'tooManyJobs'),
  ceilingCores: def(40051, 400, 'ceilingCores'),
  ceilingCpu: def(40052, 400, 'ceilingCpu'),
  ceilingMemory: def(40053, 400, 'ceilingMemory'),
  ceilingServer: def(40054, 400, 'ceilingServer'),
  ceilingPlanHours: def(40055, 400, 'ceilingPlanHours'),
  goldenInProgress: def(40056, 409, 'goldenInProgress'),
  // Versions (issue 31 item 4): a version that trains, is tested or exported stays; only a usable one can be the default.
  versionBusy: def(40090, 409, 'versionBusy'),

  // Dataset analysis and the agent (issue 35; SPEC §8 "analysis failed", "dataset analysis failed", "AI parameter
  // analysis failed", "failed to get image resolution").
  analysisFailed: def(40100, 500, 'analysisFailed'),
  datasetAnalysisFailed: def(40101, 409, 'datasetAnalysisFailed', 'toGallery'),
  aiParameterAnalysisFailed: def(40102, 409, 'aiParameterAnalysisFailed'),
  imageResolutionFailed: def(40103, 400, 'imageResolutionFailed', 'toGallery'),
  ongoingAgent: def(40104, 409, 'ongoingAgent'),
  ongoingAnalysis: def(40105, 409, 'ongoingAnalysis'),
  agentNotActive: def(40106, 409, 'agentNotActive'),
  analysisNotFound: def(40107, 404, 'analysisNotFound'),
  nothingToFix: def(40108, 409, 'nothingToFix'),
  analysisStale: def(40109, 409, 'analysisStale'),
  versionNotUsable: def(40091, 409, 'versionNotUsable'),
} as const satisfies Record<string, ErrorDef>;

export type ErrorName = keyof typeof Errors;

const byCode = new Map<number, ErrorDef>(Object.values(Errors).map((e) => [e.code, e]));

/** The catalogue row for a code, if Loupe knows it. */
export function errorByCode(code: number): ErrorDef | undefined {
  return byCode.get(code);
}

/** Codes that mean the session is gone: the client shows the relogin dialog and signs out. */
export const RELOGIN_CODES: readonly number[] = [Errors.loggedInElsewhere.code, Errors.sessionInvalid.code];
