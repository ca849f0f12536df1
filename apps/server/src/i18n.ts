import fs from 'node:fs';
import { createRequire } from 'node:module';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@loupe/contracts';

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

/** A field's display name (validation.json `fields`); unknown fields keep their own name. */
export function fieldName(lang: Language, field: string): string {
  return validation.get(lang)?.fields[field] ?? validation.get(DEFAULT_LANGUAGE)?.fields[field] ?? field;
}

export function reasonText(lang: Language, reason: string): string {
  return validation.get(lang)?.reasons[reason] ?? validation.get(DEFAULT_LANGUAGE)?.reasons[reason] ?? reason;
}
