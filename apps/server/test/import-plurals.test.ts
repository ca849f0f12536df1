import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '@loupe/contracts';
import { importText } from '../src/i18n.js';

/**
 * The import report says its counts grammatically in every language (issue 33: a user reads it on every import):
 * "1 point shape", "2 Punkt-Formen", "21 точечная фигура, 22 точечные фигуры, 25 точечных фигур".
 */
type Group = Record<string, string>;
const require = createRequire(import.meta.url);
const catalogue = (lang: string): { skip: Group; convert: Group } =>
  JSON.parse(readFileSync(require.resolve(`@loupe/contracts/locales/${lang}/imports.json`), 'utf8'));
const vars = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
const PLURAL = /^(.+)_(zero|one|two|few|many|other)$/;

describe('import report plurals', () => {
  it('picks the English and German singular for 1 only', () => {
    expect(importText('en', 'skip', 'point', { count: 1 })).toBe('1 point shape: points are not a shape Loupe trains on');
    expect(importText('en', 'skip', 'point', { count: 2 })).toBe('2 point shapes: points are not a shape Loupe trains on');
    expect(importText('en', 'skip', 'line', { count: 1 })).toBe('1 line (line, polyline or linestrip): lines are not a shape Loupe trains on');
    expect(importText('en', 'convert', 'boxToPolygon', { count: 1 })).toBe('1 box stored as a four-corner polygon: segmentation trains on polygons');
    expect(importText('en', 'convert', 'boxToPolygon', { count: 21 })).toBe('21 boxes stored as four-corner polygons: segmentation trains on polygons');
    expect(importText('en', 'skip', 'unknownClass', { count: 1, index: 7, count_names: 3 })).toBe(
      '1 shape with class index 7, which the class list (length 3) does not have',
    );
    expect(importText('de', 'skip', 'outside', { count: 1 })).toBe('1 Form ganz außerhalb ihres Bildes');
    expect(importText('de', 'skip', 'outside', { count: 5 })).toBe('5 Formen ganz außerhalb ihres Bildes');
    expect(importText('de', 'convert', 'circleToPolygon', { count: 1 })).toBe('1 Kreis oder Ellipse als Polygon gespeichert');
  });

  it('picks the Russian one, few and many forms by the last digits', () => {
    const point = (count: number) => importText('ru', 'skip', 'point', { count });
    expect(point(1)).toBe('1 точечная фигура: точки — не фигура, на которой обучается Loupe');
    expect(point(2)).toBe('2 точечные фигуры: точки — не фигура, на которой обучается Loupe');
    expect(point(5)).toBe('5 точечных фигур: точки — не фигура, на которой обучается Loupe');
    expect(point(11)).toBe('11 точечных фигур: точки — не фигура, на которой обучается Loupe');
    expect(point(21)).toBe('21 точечная фигура: точки — не фигура, на которой обучается Loupe');
    expect(point(22)).toBe('22 точечные фигуры: точки — не фигура, на которой обучается Loupe');
    const clamped = (count: number) => importText('ru', 'convert', 'clamped', { count });
    expect([1, 2, 5, 21].map(clamped)).toEqual([
      '1 фигура, выходящая за изображение, обрезана по его краю',
      '2 фигуры, выходящие за изображение, обрезаны по его краю',
      '5 фигур, выходящих за изображение, обрезано по его краю',
      '21 фигура, выходящая за изображение, обрезана по его краю',
    ]);
  });

  it('keeps the plain form where a language has no plural (Chinese), no count, or no text of its own', () => {
    expect(importText('zh', 'skip', 'point', { count: 1 })).toBe('1 个点形状：点不是 Loupe 训练所用的形状');
    expect(importText('en', 'skip', 'noLabel', {})).toBe('{{count}} shapes without a label');
    expect(importText('ru', 'skip', 'noSuchReason', { count: 1 })).toBe('noSuchReason');
  });

  it.each(LANGUAGES)('%s: every plural form has its base, a category of the language, and the same {{vars}}', (lang) => {
    const problems: string[] = [];
    const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories as string[];
    for (const group of ['skip', 'convert'] as const) {
      const texts = catalogue(lang)[group];
      for (const [key, text] of Object.entries(texts)) {
        const m = PLURAL.exec(key);
        if (!m) continue;
        const [, base, category] = m as unknown as [string, string, string];
        if (texts[base] === undefined) problems.push(`${group}.${key}: no ${base}`);
        else if (vars(text).join() !== vars(texts[base]).join()) problems.push(`${group}.${key}: {{vars}} differ from ${base}`);
        if (!categories.includes(category)) problems.push(`${group}.${key}: ${lang} has no plural category ${category}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each(LANGUAGES)('%s: every reason has each whole-number form the language needs, and the English reasons and {{vars}}', (lang) => {
    const problems: string[] = [];
    // 'other' is the plain key; Russian 'other' is for fractions only, so counts need one, few and many.
    const needed = (new Intl.PluralRules(lang).resolvedOptions().pluralCategories as string[]).filter((c) => c !== 'other');
    for (const group of ['skip', 'convert'] as const) {
      const texts = catalogue(lang)[group];
      const en = catalogue('en')[group];
      const bases = (g: Group) => Object.keys(g).filter((k) => !PLURAL.test(k)).sort();
      expect(bases(texts), `${lang} ${group}`).toEqual(bases(en));
      for (const base of bases(texts)) {
        for (const c of needed) if (texts[`${base}_${c}`] === undefined) problems.push(`${group}.${base}_${c} missing`);
        if (vars(texts[base]!).join() !== vars(en[base] ?? '').join()) problems.push(`${group}.${base}: {{vars}} differ from en`);
      }
    }
    expect(problems).toEqual([]);
  });
});
