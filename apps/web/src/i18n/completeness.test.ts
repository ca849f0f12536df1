import { describe, expect, it } from 'vitest';
import { ADMIN_MENUS, LANGUAGES, SYNTHETIC_GROUPS, SYNTHETIC_STEPS, TRAINING_GROUPS, TRAINING_STEPS, USER_MENUS } from '@loupe/contracts';
import { ROUTES } from '@/routes/table';
import i18n from './index';
import { buildResources } from './resources';

type Tree = Record<string, unknown>;

function flatten(tree: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (tree && typeof tree === 'object' && !Array.isArray(tree)) {
    for (const [key, value] of Object.entries(tree as Tree)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (value && typeof value === 'object') for (const [k, v] of flatten(value, path)) out.set(k, v);
      else out.set(path, value);
    }
  }
  return out;
}

const resources = buildResources();
const namespaces = [...new Set(LANGUAGES.flatMap((lang) => Object.keys(resources[lang] ?? {})))].sort();
const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
const PLURAL = /^(.+)_(zero|one|two|few|many|other)$/;
const pluralForms = (lang: string) => new Intl.PluralRules(lang).resolvedOptions().pluralCategories as string[];

describe('translations', () => {
  it('load every namespace, including the server errors', () => {
    for (const ns of ['common', 'menu', 'layout', 'routes', 'errors']) expect(namespaces).toContain(ns);
  });

  it.each(namespaces)('namespace %s has every key, non-empty, in every language', (ns) => {
    const flat = Object.fromEntries(LANGUAGES.map((lang) => [lang, flatten(resources[lang]?.[ns])]));
    const allKeys = new Set(LANGUAGES.flatMap((lang) => [...flat[lang]!.keys()]));
    // A plural (`key_one`, `key_other`…) has in each language exactly the forms its plural rules name: i18next
    // picks one by `count` (English one/other, Russian one/few/many/other, Chinese other).
    const base = (key: string) => PLURAL.exec(key)?.[1];
    const keysOf = (lang: string) =>
      new Set([...allKeys].flatMap((key) => (base(key) === undefined ? [key] : pluralForms(lang).map((c) => `${base(key)}_${c}`))));
    const problems: string[] = [];
    for (const lang of LANGUAGES) {
      const keys = keysOf(lang);
      for (const key of keys) {
        const value = flat[lang]!.get(key);
        if (typeof value !== 'string' || value.trim() === '') problems.push(`${lang}:${ns}:${key}`);
        const en = flat.en!.get(base(key) === undefined ? key : `${base(key)}_other`);
        if (typeof value === 'string' && typeof en === 'string' && placeholders(value).join() !== placeholders(en).join()) {
          problems.push(`${lang}:${ns}:${key} placeholders differ from en`);
        }
      }
      for (const key of flat[lang]!.keys()) if (!keys.has(key)) problems.push(`${lang}:${ns}:${key} is not a plural form of ${lang}`);
    }
    expect(problems).toEqual([]);
  });

  it('name every route, menu entry, step and group', () => {
    const missing: string[] = [];
    const need = (key: string) => {
      if (!i18n.exists(key, { lng: 'en' })) missing.push(key);
    };
    ROUTES.filter((r) => !r.redirect).forEach((r) => need(`routes:${r.title}`));
    const entries = [...USER_MENUS, ...ADMIN_MENUS].flatMap((m) => [m, ...(m.children ?? [])]);
    entries.forEach((m) => need(`menu:${m.permissionName}`));
    [...TRAINING_STEPS, ...SYNTHETIC_STEPS].forEach((s) => need(`menu:steps.${s}`));
    [...TRAINING_GROUPS, ...SYNTHETIC_GROUPS].forEach((g) => need(`menu:groups.${g}`));
    expect(missing).toEqual([]);
  });
});
