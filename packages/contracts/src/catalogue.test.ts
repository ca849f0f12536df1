import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Errors, errorByCode } from './errors.js';
import { LANGUAGES } from './limits.js';

const load = (lang: string): Record<string, string> =>
  JSON.parse(readFileSync(fileURLToPath(new URL(`../locales/${lang}/errors.json`, import.meta.url)), 'utf8'));

describe('error catalogue', () => {
  const defs = Object.values(Errors);

  it('gives every code one row, except the two §8 position codes that share a message', () => {
    const codes = defs.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(errorByCode(99993)?.reaction).toBe('relogin');
    expect(errorByCode(99991)?.reaction).toBe('silent');
  });

  it.each(LANGUAGES)('has a non-empty %s message for every key, and no stray keys', (lang) => {
    const messages = load(lang);
    const keys = new Set(defs.map((e) => e.key));
    for (const key of keys) expect(messages[key], `${lang}:${key}`).toBeTruthy();
    expect(Object.keys(messages).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('keeps the same placeholders in every language', () => {
    const en = load('en');
    for (const lang of LANGUAGES) {
      const messages = load(lang);
      for (const [key, text] of Object.entries(en)) {
        const vars = (s: string) => [...s.matchAll(/{{(\w+)}}/g)].map((m) => m[1]).sort();
        expect(vars(messages[key] ?? ''), `${lang}:${key}`).toEqual(vars(text));
      }
    }
  });
});
