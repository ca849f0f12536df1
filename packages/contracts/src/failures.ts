/**
 * Why a training, test or model pack failed. The server stores `[code] detail`: the code is explained in the
 * user's language (locales/<lang>/failures.json), the detail is the engine's own words (file names, numbers), kept
 * as written. Codes in lower snake case are the engine's (engine/README.md, `error` events); the others are the
 * platform's.
 */
export const FailureCodes = [
  // The platform's.
  'stopped',
  'serverStoppedTraining',
  'serverStoppedTest',
  'serverStoppedAgent',
  'serverStoppedPack',
  'processKilled',
  'runnerLost',
  'engineExited',
  'timeLimit',
  'weightsMissing',
  'labelRemoved',
  'imagesMissing',
  // The engine's.
  'missing_argument',
  'empty_dataset',
  'invalid_parameters',
  'dataset_invalid',
  'dataset_missing',
  'spec_invalid',
  'no_validation_set',
  'invalid_tolerances',
  'nothing_to_resume',
  'model_invalid',
  'model_missing',
  'invalid_task',
  'pretrained_missing',
  'device_unavailable',
  'charset_too_big',
  'category_without_polygons',
  'category_without_images',
  'category_without_boxes',
  'bad_image',
  'no_text',
  'empty_text',
  'text_too_long',
] as const;
export type FailureCode = (typeof FailureCodes)[number];

const STORED = /^\[([A-Za-z_]+)\] ?([\s\S]*)$/;

/** The stored form of a failure reason. */
export function failure(code: FailureCode | string, detail = ''): string {
  return detail ? `[${code}] ${detail}` : `[${code}]`;
}

/** A stored reason's code (null for a reason stored before codes, or an unknown one) and its detail. */
export function splitFailure(stored: string): { code: FailureCode | null; detail: string } {
  const m = STORED.exec(stored);
  if (!m) return { code: null, detail: stored };
  const code = (FailureCodes as readonly string[]).includes(m[1]!) ? (m[1] as FailureCode) : null;
  return { code, detail: code ? m[2]! : stored };
}
