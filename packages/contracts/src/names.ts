/**
 * Names a user gives (first and last name, company, job title, country, model and label names) are shown to
 * other people and written into files and logs. Characters that are invisible or that reorder the text around
 * them are refused: C0 and C1 control characters (tabs and line breaks included), zero-width characters
 * (U+200B to U+200D, U+FEFF), the directional marks U+200E and U+200F, and the bidirectional embeddings,
 * overrides and isolates (U+202A to U+202E, U+2066 to U+2069), with which "txt.exe" can be shown as "exe.txt".
 */
export const NAME_FORBIDDEN_CHARS = '[\\u0000-\\u001F\\u007F-\\u009F\\u200B-\\u200F\\u202A-\\u202E\\u2066-\\u2069\\uFEFF]';

const forbidden = new RegExp(NAME_FORBIDDEN_CHARS, 'u');

/** The first refused character of a name as U+XXXX, or null when the name is fine. */
export function forbiddenNameChar(value: string): string | null {
  const m = forbidden.exec(value);
  return m ? `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}
