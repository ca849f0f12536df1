import type { Resource, ResourceLanguage } from 'i18next';
import { LANGUAGES } from '@loupe/contracts';
import { parseLocalePath } from './bundle';
import errorsEn from '@loupe/contracts/locales/en/errors.json';
import errorsZh from '@loupe/contracts/locales/zh/errors.json';
import errorsDe from '@loupe/contracts/locales/de/errors.json';
import errorsRu from '@loupe/contracts/locales/ru/errors.json';

type Json = Record<string, unknown>;

/** Server messages live in contracts so that server and web share one catalogue (SPEC §8). */
const serverErrors: Record<string, Json> = { en: errorsEn, zh: errorsZh, de: errorsDe, ru: errorsRu };

// Every src/locales/<lang>/<namespace>.json of every language at once, for the completeness test; the app loads
// one language at a time (lang/*.ts).
const files = import.meta.glob<Json>('../locales/*/*.json', { eager: true, import: 'default' });

export { parseLocalePath };

export function buildResources(): Resource {
  const resources: Resource = {};
  for (const lang of LANGUAGES) resources[lang] = { errors: serverErrors[lang] ?? {} };
  for (const [path, content] of Object.entries(files)) {
    const parsed = parseLocalePath(path);
    if (!parsed) continue;
    const bucket: ResourceLanguage = (resources[parsed.lang] ??= {});
    bucket[parsed.ns] = content;
  }
  return resources;
}
