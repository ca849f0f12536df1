import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type Geometry, type ImageAnnotationsData, type TestResultsData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { dataVersion, load, save, shapes, studio, type Studio } from './labeling-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

/** Test runs (a later issue) fill test_predictions; until then the tests write rows through the repository. */
async function predict(s: Studio, imageId: number, rows: { label: string; geometry: Geometry; confidence: number }[]): Promise<number[]> {
  await t.app.deps.testPredictions.insertMany(
    rows.map((r) => ({ image_id: imageId, model_id: s.model.id, label_id: s.labels[r.label]!, geometry: JSON.stringify(r.geometry), confidence: r.confidence, created_at: Date.now() })),
  );
  return (await t.app.deps.testPredictions.forImage(s.model.id, imageId)).map((r) => r.id);
}

const base = (s: Studio, imageId: number) => `/api/models/${s.model.id}/images/${imageId}/test-results`;
const results = (s: Studio, imageId: number) => call<TestResultsData>(t.app, 'GET', base(s, imageId), undefined, { token });
const convert = (s: Studio, imageId: number, body: Record<string, unknown>, lang?: string) =>
  call<ImageAnnotationsData>(t.app, 'POST', `${base(s, imageId)}/convert`, body, { token, ...(lang ? { lang } : {}) });
const toTest = (s: Studio, ids: number[]) => call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids, split: 'test' }, { token });

const found: { label: string; geometry: Geometry; confidence: number }[] = [
  { label: 'scratch', geometry: { kind: 'box', x1: 150, y1: 10, x2: 230, y2: 50 }, confidence: 0.91 },
  { label: 'dent', geometry: { kind: 'polygon', points: [[10, 10], [60, 10], [30, 70]] }, confidence: 0.42 },
];

describe('test results (SPEC §4 test boxes, dashed; convert only test data)', () => {
  it('lists the latest test\'s detections and says whether they can be converted', async () => {
    const s = await studio(t.app, token, { size: [200, 100] });
    const img = s.images[0]!;
    expect((await results(s, img)).data).toEqual({ imageId: img, convertible: false, results: [] });
    const ids = await predict(s, img, found);
    const r = await results(s, img);
    expect(r.data.convertible).toBe(false);
    expect(r.data.results).toEqual(found.map((f, i) => ({ id: ids[i], labelId: s.labels[f.label], geometry: f.geometry, confidence: f.confidence })));
    await toTest(s, [img]);
    expect((await results(s, img)).data.convertible).toBe(true);
  });

  it('refuses to convert on an image outside the test split, in the caller language', async () => {
    const s = await studio(t.app, token);
    await predict(s, s.images[0]!, found);
    const r = await convert(s, s.images[0]!, { baseVersion: 0 }, 'ru');
    expect(r).toMatchObject({ status: 409, code: Errors.notTestData.code, message: 'Это не тестовые данные, преобразование невозможно.' });
    expect((await load(t.app, token, s, s.images[0]!)).version).toBe(0);
  });

  it('adds the chosen detections, clamped and without confidence, to the current set as a new version', async () => {
    const s = await studio(t.app, token, { size: [200, 100] });
    const img = s.images[0]!;
    await toTest(s, [img]);
    const mine = { labelId: s.labels.dent!, geometry: { kind: 'box', x1: 70, y1: 60, x2: 90, y2: 90 } } as const;
    await save(t.app, token, s, img, 0, [mine]);
    const [first, second] = (await predict(s, img, found)) as [number, number];
    const one = await convert(s, img, { baseVersion: 1, ids: [first] });
    expect(one.code, one.message).toBe(0);
    expect(one.data.version).toBe(2);
    expect(shapes(one)).toEqual([mine, { labelId: s.labels.scratch, geometry: { kind: 'box', x1: 150, y1: 10, x2: 200, y2: 50 } }]);
    expect(JSON.stringify(one.data)).not.toContain('confidence');
    expect(await dataVersion(t.app, token, s.model.id)).toBe(2);
    // all: the one converted before is not added a second time
    const all = await convert(s, img, { baseVersion: 2 });
    expect(all.data.version).toBe(3);
    expect(shapes(all).slice(1)).toEqual([
      { labelId: s.labels.scratch, geometry: { kind: 'box', x1: 150, y1: 10, x2: 200, y2: 50 } },
      { labelId: s.labels.dent, geometry: found[1]!.geometry },
    ]);
    const again = await convert(s, img, { baseVersion: 3, ids: [second] });
    expect(again.data.version).toBe(3);
    expect(await dataVersion(t.app, token, s.model.id)).toBe(3);
    // a stale tab cannot convert on top of a set it has not seen
    expect((await convert(s, img, { baseVersion: 1 })).code).toBe(Errors.annotationConflict.code);
    expect((await load(t.app, token, s, img)).version).toBe(3);
  });

  it('fails with convertFailed when there is nothing to convert', async () => {
    const s = await studio(t.app, token);
    const img = s.images[0]!;
    await toTest(s, [img]);
    const none = await convert(s, img, { baseVersion: 0 }, 'de');
    expect(none).toMatchObject({ status: 409, code: Errors.convertFailed.code, message: 'Umwandlung fehlgeschlagen: Es gibt keine Testergebnisse zum Umwandeln.' });
    await predict(s, img, found);
    const other = await studio(t.app, token);
    const [foreign] = await predict(other, other.images[0]!, found);
    expect((await convert(s, img, { baseVersion: 0, ids: [foreign, 999_999] })).code).toBe(Errors.convertFailed.code);
    expect((await load(t.app, token, s, img)).version).toBe(0);
  });

  it('converting all skips detections under the minimum area; a chosen one is refused like a save', async () => {
    const s = await studio(t.app, token);
    const img = s.images[0]!;
    await toTest(s, [img]);
    const [tiny, big] = (await predict(s, img, [
      { label: 'scratch', geometry: { kind: 'box', x1: 5, y1: 5, x2: 6, y2: 6 }, confidence: 0.3 },
      { label: 'dent', geometry: { kind: 'box', x1: 10, y1: 10, x2: 40, y2: 40 }, confidence: 0.8 },
    ])) as [number, number];
    const chosen = await convert(s, img, { baseVersion: 0, ids: [tiny, big] });
    expect(chosen).toMatchObject({ status: 400, code: Errors.annotationTooSmall.code, data: { resultId: tiny } });
    const all = await convert(s, img, { baseVersion: 0 });
    expect(shapes(all)).toEqual([{ labelId: s.labels.dent, geometry: { kind: 'box', x1: 10, y1: 10, x2: 40, y2: 40 } }]);
    const s2 = await studio(t.app, token);
    await toTest(s2, [s2.images[0]!]);
    await predict(s2, s2.images[0]!, [{ label: 'dent', geometry: { kind: 'box', x1: 1, y1: 1, x2: 2, y2: 2 }, confidence: 0.5 }]);
    expect((await convert(s2, s2.images[0]!, { baseVersion: 0 })).code).toBe(Errors.convertFailed.code);
  });
});
