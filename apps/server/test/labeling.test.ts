import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, LabelingLimits, type ImageListData, type ModelData, type NewAnnotation, type RBoxGeometry } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { annotationsUrl, load, save, shapes, studio } from './labeling-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

/** The four corners of a rotated box (angle in degrees, clockwise with y down). */
function corners(g: RBoxGeometry): [number, number][] {
  const t = (g.angle * Math.PI) / 180;
  const [c, s] = [Math.cos(t), Math.sin(t)];
  return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([u, v]) => [g.cx + (u! * g.w * c - v! * g.h * s) / 2, g.cy + (u! * g.w * s + v! * g.h * c) / 2]);
}

const open = (opts: Parameters<typeof studio>[2] = {}) => studio(t.app, token, opts);

describe('saving annotations (SPEC §2 /mark, §3 annotation box)', () => {
  it('round-trips boxes, rotated boxes, polygons and OCR text', async () => {
    const s = await open({ type: 'OCR', size: [200, 100] });
    const img = s.images[0]!;
    const { scratch, dent } = s.labels as { scratch: number; dent: number };
    const set: NewAnnotation[] = [
      { labelId: scratch, geometry: { kind: 'box', x1: 10, y1: 20, x2: 40.5, y2: 60 } },
      { labelId: dent, geometry: { kind: 'rbox', cx: 100, cy: 50, w: 40, h: 10, angle: 30 } },
      { labelId: dent, geometry: { kind: 'polygon', points: [[120, 10], [190, 10], [190, 90], [150, 95]] } },
      { labelId: scratch, geometry: { kind: 'box', x1: 5, y1: 5, x2: 60, y2: 25, text: 'LOT 42-Ä' } },
    ];
    expect((await load(t.app, token, s, img)).version).toBe(0);
    const r = await save(t.app, token, s, img, 0, set);
    expect(r.code, r.message).toBe(0);
    expect(r.data.version).toBe(1);
    expect(shapes(r)).toEqual(set);
    const back = await load(t.app, token, s, img);
    expect(back.version).toBe(1);
    expect(shapes(back)).toEqual(set);
    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images`, undefined, { token });
    expect(list.data.items[0]).toMatchObject({ labeled: true, annotationCount: 4 });
  });

  it('refuses a save from a tab that loaded an older version, and changes nothing', async () => {
    const s = await open();
    const img = s.images[0]!;
    const a: NewAnnotation = { labelId: s.labels.scratch!, geometry: { kind: 'box', x1: 1, y1: 1, x2: 50, y2: 50 } };
    const b: NewAnnotation = { labelId: s.labels.dent!, geometry: { kind: 'box', x1: 60, y1: 10, x2: 90, y2: 40 } };
    // two tabs both open version 0; the first one saves
    expect((await save(t.app, token, s, img, 0, [a])).data.version).toBe(1);
    const before = (await call<ModelData>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token })).data;
    const late = await save(t.app, token, s, img, 0, [b]);
    expect(late).toMatchObject({ status: 409, code: Errors.annotationConflict.code });
    expect(late.message).toBe('These annotations were changed in another tab or by another user. The latest version has been loaded.');
    const now = await load(t.app, token, s, img);
    expect(now.version).toBe(1);
    expect(shapes(now)).toEqual([a]);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token })).data.dataVersion).toBe(before.dataVersion);
    // a base version from the future is just as stale
    expect((await save(t.app, token, s, img, 5, [b])).code).toBe(Errors.annotationConflict.code);
    // after reloading, the second tab saves on top of the first
    expect((await save(t.app, token, s, img, now.version, [a, b])).data.version).toBe(2);
  });

  it('clamps shapes to the image', async () => {
    const s = await open({ size: [200, 100] });
    const img = s.images[0]!;
    const l = s.labels.scratch!;
    const r = await save(t.app, token, s, img, 0, [
      { labelId: l, geometry: { kind: 'box', x1: 250, y1: 80, x2: 150, y2: -20 } },
      { labelId: l, geometry: { kind: 'polygon', points: [[-10, -10], [300, 20], [100, 500]] } },
      { labelId: l, geometry: { kind: 'rbox', cx: 180, cy: 50, w: 40, h: 20, angle: 45 } },
    ]);
    expect(r.code, r.message).toBe(0);
    const [box, poly, rbox] = r.data.annotations.map((a) => a.geometry);
    // corners in order and inside
    expect(box).toEqual({ kind: 'box', x1: 150, y1: 0, x2: 200, y2: 80 });
    expect(poly).toEqual({ kind: 'polygon', points: [[0, 0], [200, 20], [100, 100]] });
    // a rotated box keeps centre and angle and shrinks, keeping its proportions, until its corners are inside
    const rb = rbox as RBoxGeometry;
    expect(rb).toMatchObject({ kind: 'rbox', cx: 180, cy: 50, angle: 45 });
    expect(rb.w / rb.h).toBeCloseTo(2, 9);
    expect(rb.w).toBeLessThan(40);
    const xs = corners(rb).map(([x]) => x);
    expect(Math.max(...xs)).toBeCloseTo(200, 9);
    expect(Math.min(...xs)).toBeGreaterThan(0);
    const wide = await save(t.app, token, s, img, 1, [{ labelId: l, geometry: { kind: 'rbox', cx: 190, cy: 50, w: 60, h: 10, angle: 0 } }]);
    const w = wide.data.annotations[0]!.geometry as RBoxGeometry;
    expect([w.cx, w.cy, w.angle, w.w, w.h / (10 / 3)].map((v) => Math.round(v * 1e9) / 1e9)).toEqual([190, 50, 0, 20, 1]);
    // a rotated box whose centre lies outside is not moved in: it is refused
    const outside = await save(t.app, token, s, img, 2, [{ labelId: l, geometry: { kind: 'rbox', cx: 210, cy: 50, w: 60, h: 30, angle: 0 } }]);
    expect(outside).toMatchObject({ status: 400, code: Errors.shapeInvalid.code, data: { index: 0 } });
    // a box wholly outside has no area left
    const gone = await save(t.app, token, s, img, 2, [{ labelId: l, geometry: { kind: 'box', x1: 210, y1: 10, x2: 260, y2: 60 } }]);
    expect(gone.code).toBe(Errors.shapeInvalid.code);
  });

  it('refuses shapes under the minimum area: the default, then a changed setting; in the caller language', async () => {
    const s = await open();
    const img = s.images[0]!;
    const l = s.labels.scratch!;
    const keep: NewAnnotation = { labelId: l, geometry: { kind: 'box', x1: 0, y1: 0, x2: 50, y2: 50 } };
    expect((await save(t.app, token, s, img, 0, [keep])).code).toBe(0);
    const box = (w: number, h: number): NewAnnotation => ({ labelId: l, geometry: { kind: 'box', x1: 100, y1: 10, x2: 100 + w, y2: 10 + h } });
    const small = await save(t.app, token, s, img, 1, [keep, box(1, 3.9)]);
    expect(small).toMatchObject({ status: 400, code: Errors.annotationTooSmall.code, data: { index: 1 } });
    expect(small.message).toBe(`A shape is smaller than the minimum area of ${LabelingLimits.minAreaDefault} px².`);
    expect((await save(t.app, token, s, img, 1, [keep, box(2, 2)])).code).toBe(0);
    const settings = `/api/models/${s.model.id}/labeling-settings`;
    expect((await call(t.app, 'PUT', settings, { minArea: 100 }, { token })).data).toEqual({ minArea: 100 });
    const de = await save(t.app, token, s, img, 2, [keep, box(10, 9.5)], 'de');
    expect(de).toMatchObject({ code: Errors.annotationTooSmall.code, message: 'Eine Form ist kleiner als die Mindestfläche von 100 px².' });
    // the 2×2 box saved earlier stays until someone saves it again
    expect((await load(t.app, token, s, img)).annotations).toHaveLength(2);
    expect((await save(t.app, token, s, img, 2, [keep, box(10, 10)])).code).toBe(0);
    const poly = await save(t.app, token, s, img, 3, [{ labelId: l, geometry: { kind: 'polygon', points: [[0, 0], [10, 0], [10, 19]] } }]);
    expect(poly.code).toBe(Errors.annotationTooSmall.code);
    expect((await load(t.app, token, s, img)).version).toBe(3);
  });

  it('refuses a label of no model or of another model', async () => {
    const s = await open();
    const other = await open({ labels: ['bolt'] });
    const img = s.images[0]!;
    const ok: NewAnnotation = { labelId: s.labels.scratch!, geometry: { kind: 'box', x1: 0, y1: 0, x2: 10, y2: 10 } };
    for (const labelId of [other.labels.bolt!, 999_999]) {
      const r = await save(t.app, token, s, img, 0, [ok, { labelId, geometry: { kind: 'box', x1: 0, y1: 0, x2: 10, y2: 10 } }]);
      expect(r).toMatchObject({ status: 400, code: Errors.labelNotInModel.code, data: { index: 1 } });
    }
    expect(await load(t.app, token, s, img)).toEqual({ imageId: img, version: 0, annotations: [] });
  });

  it('refuses degenerate shapes: repeated polygon points, rotated boxes without size, too many points, too much text', async () => {
    const s = await open();
    const img = s.images[0]!;
    const l = s.labels.scratch!;
    const bad: NewAnnotation['geometry'][] = [
      { kind: 'polygon', points: [[10, 10], [50, 50], [10, 10]] },
      { kind: 'polygon', points: [[10, 10], [20, 20], [30, 30]] },
      { kind: 'rbox', cx: 50, cy: 50, w: 0, h: 10, angle: 0 },
      { kind: 'rbox', cx: 50, cy: 50, w: 10, h: -4, angle: 0 },
      { kind: 'polygon', points: Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => [i % 200, Math.floor(i / 200)] as [number, number]) },
    ];
    for (const geometry of bad) {
      const r = await save(t.app, token, s, img, 0, [{ labelId: l, geometry }]);
      expect(r.code, geometry.kind).toBe(Errors.shapeInvalid.code);
    }
    const text = await save(t.app, token, s, img, 0, [{ labelId: l, geometry: { kind: 'box', x1: 0, y1: 0, x2: 9, y2: 9, text: 'x'.repeat(LabelingLimits.ocrTextMax + 1) } }]);
    expect(text).toMatchObject({ status: 400, code: Errors.fieldTooLong.code });
    // non-finite numbers: JSON has none, but 1e400 parses to Infinity, which the schema refuses
    const res = await t.app.inject({
      method: 'PUT',
      url: annotationsUrl(s.model.id, img),
      headers: { 'x-token': token, 'content-type': 'application/json' },
      payload: `{"baseVersion":0,"annotations":[{"labelId":${l},"geometry":{"kind":"box","x1":0,"y1":0,"x2":1e400,"y2":9}}]}`,
    });
    expect(res.json()).toMatchObject({ code: Errors.validation.code });
    expect((await load(t.app, token, s, img)).version).toBe(0);
  });

  it('an empty set clears the image; saving the same set again stores nothing new', async () => {
    const s = await open();
    const img = s.images[0]!;
    const set: NewAnnotation[] = [
      { labelId: s.labels.scratch!, geometry: { kind: 'box', x1: 1, y1: 2, x2: 30, y2: 40 } },
      { labelId: s.labels.dent!, geometry: { kind: 'polygon', points: [[50, 10], [90, 10], [70, 60]] } },
    ];
    expect((await save(t.app, token, s, img, 0, set)).data.version).toBe(1);
    // same shapes in another order: no new version, so trainings do not go out of date
    const same = await save(t.app, token, s, img, 1, [set[1]!, set[0]!]);
    expect(same.data.version).toBe(1);
    const cleared = await save(t.app, token, s, img, 1, []);
    expect(cleared.data).toEqual({ imageId: img, version: 2, annotations: [] });
    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images`, undefined, { token });
    expect(list.data.items[0]).toMatchObject({ labeled: false, annotationCount: 0 });
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token })).data.labeledImages).toBe(0);
  });

  it('takes a large set (2,000 polygons of 20 points, over the 1 MB default body limit)', async () => {
    const s = await open({ size: [2000, 2000] });
    const img = s.images[0]!;
    const polygon = (k: number): NewAnnotation => ({
      labelId: s.labels.scratch!,
      geometry: {
        kind: 'polygon',
        points: Array.from({ length: 20 }, (_, i) => {
          const a = (i / 20) * 2 * Math.PI;
          return [(k % 45) * 44 + 22.123456 + 20 * Math.cos(a), Math.floor(k / 45) * 44 + 22.654321 + 20 * Math.sin(a)] as [number, number];
        }),
      },
    });
    const set = Array.from({ length: 2000 }, (_, k) => polygon(k));
    expect(JSON.stringify({ baseVersion: 0, annotations: set }).length).toBeGreaterThan(1024 * 1024);
    const r = await save(t.app, token, s, img, 0, set);
    expect(r.code, r.message).toBe(0);
    expect(r.data.annotations).toHaveLength(2000);
    expect(shapes(await load(t.app, token, s, img))).toEqual(set);
  });

  it('takes the shape limit itself and refuses one more', async () => {
    const s = await open({ size: [2000, 2000] });
    const img = s.images[0]!;
    const box = (k: number): NewAnnotation => ({
      labelId: s.labels.dent!,
      geometry: { kind: 'box', x1: (k % 200) * 10, y1: Math.floor(k / 200) * 10, x2: (k % 200) * 10 + 5, y2: Math.floor(k / 200) * 10 + 5 },
    });
    const set = Array.from({ length: LabelingLimits.shapesPerImageMax }, (_, k) => box(k));
    const over = await save(t.app, token, s, img, 0, [...set, box(0)]);
    expect(over).toMatchObject({ status: 400, code: Errors.validation.code });
    const r = await save(t.app, token, s, img, 0, set);
    expect(r.code, r.message).toBe(0);
    expect(r.data.annotations).toHaveLength(LabelingLimits.shapesPerImageMax);
  });

  it('lets exactly one of two simultaneous saves from the same version through', async () => {
    const s = await open();
    const img = s.images[0]!;
    const tab = (x: number) => save(t.app, token, s, img, 0, [{ labelId: s.labels.scratch!, geometry: { kind: 'box', x1: x, y1: 0, x2: x + 30, y2: 30 } }]);
    const codes = (await Promise.all([tab(0), tab(50), tab(100)])).map((r) => r.code).sort();
    expect(codes).toEqual([0, Errors.annotationConflict.code, Errors.annotationConflict.code]);
    const now = await load(t.app, token, s, img);
    expect(now.version).toBe(1);
    expect(now.annotations).toHaveLength(1);
  });
});
