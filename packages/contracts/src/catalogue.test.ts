import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Errors, errorByCode } from './errors.js';
import { FailureCodes, failure, splitFailure } from './failures.js';
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

describe('failure reasons', () => {
  const failures = (lang: string): Record<string, string> =>
    JSON.parse(readFileSync(fileURLToPath(new URL(`../locales/${lang}/failures.json`, import.meta.url)), 'utf8'));

  it.each(LANGUAGES)('explain every failure code in %s, and nothing else', (lang) => {
    const messages = failures(lang);
    for (const code of FailureCodes) expect(messages[code], `${lang}:${code}`).toBeTruthy();
    expect(Object.keys(messages).filter((k) => !(FailureCodes as readonly string[]).includes(k))).toEqual([]);
  });

  it('stores a code with the detail and reads both back; a reason without a known code stays whole', () => {
    expect(splitFailure(failure('bad_image', 'a.jpg: cannot decode'))).toEqual({ code: 'bad_image', detail: 'a.jpg: cannot decode' });
    expect(splitFailure(failure('stopped'))).toEqual({ code: 'stopped', detail: '' });
    expect(splitFailure('the training process was killed')).toEqual({ code: null, detail: 'the training process was killed' });
    expect(splitFailure('[made_up] x')).toEqual({ code: null, detail: '[made_up] x' });
  });
});
