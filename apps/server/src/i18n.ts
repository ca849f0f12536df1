import fs from 'node:fs';
import { createRequire } from 'node:module';
import { DEFAULT_LANGUAGE, LANGUAGES, splitFailure, type Language } from '@loupe/contracts';

const require = createRequire(import.meta.url);

type Catalogue = Record<string, string>;
interface ValidationCatalogue {
  fields: Catalogue;
  reasons: Catalogue;
}

function load<T>(lang: Language, file: string): T {
  return JSON.parse(fs.readFileSync(require.resolve(`@loupe/contracts/locales/${lang}/${file}`), 'utf8')) as T;
}

const errors = new Map<Language, Catalogue>(LANGUAGES.map((l) => [l, load<Catalogue>(l, 'errors.json')]));
const failures = new Map<Language, Catalogue>(LANGUAGES.map((l) => [l, load<Catalogue>(l, 'failures.json')]));
interface ImportCatalogue {
  skip: Catalogue;
  convert: Catalogue;
  expected: Catalogue;
  expectedSentence: string;
}
const agent = new Map<Language, Catalogue>(LANGUAGES.map((l) => [l, load<Catalogue>(l, 'agent.json')]));
const imports = new Map<Language, ImportCatalogue>(LANGUAGES.map((l) => [l, load<ImportCatalogue>(l, 'imports.json')]));
const validation = new Map<Language, ValidationCatalogue>(
  LANGUAGES.map((l) => [l, load<ValidationCatalogue>(l, 'validation.json')]),
);

/** The caller's language from the `Language` header: exact, then by prefix ("zh-CN"), else English. */
export function pickLanguage(header: string | string[] | undefined): Language {
  const raw = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (!raw) return DEFAULT_LANGUAGE;
  return LANGUAGES.find((l) => raw === l || raw.startsWith(`${l}-`) || raw.startsWith(`${l}_`)) ?? DEFAULT_LANGUAGE;
}

export function interpolate(template: string, vars: Record<string, string | number> = {}): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    name in vars ? String(vars[name]) : whole,
  );
}

/** An error message from contracts' locales/<lang>/errors.json. */
export function errorMessage(lang: Language, key: string, vars?: Record<string, string | number>): string {
  const template = errors.get(lang)?.[key] ?? errors.get(DEFAULT_LANGUAGE)?.[key] ?? key;
  return interpolate(template, vars);
}

const pluralRules = new Map<Language, Intl.PluralRules>(LANGUAGES.map((l) => [l, new Intl.PluralRules(l)]));

/**
 * An import report line (contracts locales/<lang>/imports.json): a skip or convert reason with its count, in the
 * form for the count's plural category where the language has one (`point_one`; Russian `_one`, `_few`, `_many`),
 * else the plain key ("2 point shapes"). A reason the language lacks is said in English.
 */
export function importText(lang: Language, group: 'skip' | 'convert', reason: string, vars: Record<string, string | number>): string {
  const count = Number(vars.count);
  const form = (l: Language): string | undefined => {
    const texts = imports.get(l)?.[group];
    if (texts?.[reason] === undefined) return undefined;
    return (Number.isFinite(count) ? texts[`${reason}_${pluralRules.get(l)!.select(count)}`] : undefined) ?? texts[reason];
  };
  return interpolate(form(lang) ?? form(DEFAULT_LANGUAGE) ?? reason, vars);
}

/** "Expected: a list of [x, y] number pairs." for a badField's `expected` key; '' for none or an unknown key. */
export function expectedText(lang: Language, expected: string | number | undefined): string {
  if (expected === undefined) return '';
  const cat = imports.get(lang) ?? imports.get(DEFAULT_LANGUAGE)!;
  const what = cat.expected[String(expected)] ?? imports.get(DEFAULT_LANGUAGE)!.expected[String(expected)];
  return what ? interpolate(cat.expectedSentence, { expected: what }) : '';
}

/** A field's display name (validation.json `fields`); unknown fields keep their own name. */
export function fieldName(lang: Language, field: string): string {
  return validation.get(lang)?.fields[field] ?? validation.get(DEFAULT_LANGUAGE)?.fields[field] ?? field;
}

export function reasonText(lang: Language, reason: string): string {
  return validation.get(lang)?.reasons[reason] ?? validation.get(DEFAULT_LANGUAGE)?.reasons[reason] ?? reason;
}

/**
 * A stored failure reason (contracts failures.ts) in the user's language: the code's sentence, then the engine's
 * detail as it wrote it ("An image could not be read: a.jpg: cannot decode"). A reason without a known code is
 * shown as stored.
 */
export function failureText(lang: Language, stored: string | null): string | null {
  if (stored === null) return null;
  const { code, detail } = splitFailure(stored);
  if (code === null) return detail;
  const sentence = failures.get(lang)?.[code] ?? failures.get(DEFAULT_LANGUAGE)![code]!;
  return detail ? `${sentence.replace(/[.。]$/, '')}: ${detail}` : sentence;
}

/**
 * The failure reasons of an API answer in the user's language: the `error` of a training, test run or pack, or of
 * each one of a list's `items`.
 */
export function withFailuresIn<T>(data: T, lang: Language): T {
  const one = <V>(v: V): V => {
    if (v === null || typeof v !== 'object' || !('error' in v)) return v;
    const error = (v as { error: unknown }).error;
    return typeof error === 'string' ? { ...v, error: failureText(lang, error) } : v;
  };
  if (data !== null && typeof data === 'object' && 'items' in data && Array.isArray((data as { items: unknown }).items)) {
    return { ...data, items: (data as { items: unknown[] }).items.map(one) };
  }
  return one(data);
}

/**
 * An agent log entry (contracts locales/<lang>/agent.json), else an error message of that key (the §8 messages the
 * log repeats). A value the template does not know is left out; a placeholder without a value makes the entry
 * fall back to its group's `<group>.generic` when the catalogue has one, so a message never shows "{{name}}".
 */
export function agentText(lang: Language, key: string, params: Record<string, string | number> = {}): string {
  const pick = (k: string) => agent.get(lang)?.[k] ?? agent.get(DEFAULT_LANGUAGE)?.[k];
  const template = pick(key);
  if (template === undefined) return errorMessage(lang, key, params);
  const text = interpolate(template, params);
  const generic = pick(`${key.split('.')[0]!}.generic`);
  return /\{\{\s*\w+\s*\}\}/.test(text) && generic !== undefined ? interpolate(generic, { key, ...params }) : text;
}
