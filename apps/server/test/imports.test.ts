import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exportFormatsFor,
  ExportFormats,
  type AnnotationImportData,
  type ExportFormat,
  type Geometry,
  type ImageAnnotationsData,
  type ImageListData,
  type LabelData,
  type ModelData,
  type ModelType,
  type NewAnnotation,
} from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken, zip, zipUrl, type ZipEntry } from './gallery-fixtures.js';

/**
 * Issue 33 through the routes: every export format imports back into a new model with the same shapes (the
 * ZIP carries its images), images are matched by name, path or stem and ambiguity is reported, classification
 * imports class folders and lists, and the report names every shape left out in the user's language.
 */
let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const importZip = async (m: ModelData, entries: ZipEntry[], lang?: string) =>
  send<AnnotationImportData>(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'ann.zip', data: await zip(entries) }], lang ? { lang } : {});

async function upload(m: ModelData, names: string[], size: [number, number] = [240, 160]): Promise<number[]> {
  const files = await Promise.all(names.map(async (n, i) => ({ filename: n, data: await draw(n.endsWith('.png') ? 'png' : 'jpeg', size[0], size[1], 977 * m.id + i) })));
  const r = await send(t.app, token, uploadUrl(m.id), files);
  expect(r.data.accepted, JSON.stringify(r.data.results)).toBe(names.length);
  return r.data.results.map((x) => x.imageId!);
}

async function labelIds(m: ModelData, names: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of names) out.set(name, (await call<LabelData>(t.app, 'POST', `/api/models/${m.id}/labels`, { name }, { token })).data.id);
  return out;
}

interface Shape {
  image: string;
  label: string;
  geometry: Geometry;
}

async function shapesOf(m: ModelData): Promise<Shape[]> {
  const labels = new Map((await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data.map((l) => [l.id, l.name]));
  const images = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=200`, undefined, { token })).data.items;
  const out: Shape[] = [];
  for (const img of images) {
    const a = await call<ImageAnnotationsData>(t.app, 'GET', `/api/models/${m.id}/images/${img.id}/annotations`, undefined, { token });
    for (const x of a.data.annotations) out.push({ image: img.name, label: labels.get(x.labelId)!, geometry: x.geometry });
  }
  return out;
}

type P = [number, number];
function corners(g: Geometry): P[] {
  if (g.kind === 'polygon') return g.points;
  if (g.kind === 'box')
    return [
      [g.x1, g.y1],
      [g.x2, g.y1],
      [g.x2, g.y2],
      [g.x1, g.y2],
    ];
  const a = (g.angle * Math.PI) / 180;
  return (
    [
      [-1, -1],
      [1, -1],
      [1, 1],
      [-1, 1],
    ] as P[]
  ).map(([sx, sy]) => [g.cx + ((sx * g.w) / 2) * Math.cos(a) - ((sy * g.h) / 2) * Math.sin(a), g.cy + ((sx * g.w) / 2) * Math.sin(a) + ((sy * g.h) / 2) * Math.cos(a)]);
}

/** The same outline within 0.01 px: the same points in the same cyclic order, starting anywhere. */
function sameOutline(a: P[], b: P[]): boolean {
  if (a.length !== b.length) return false;
  const close = (p: P, q: P) => Math.abs(p[0] - q[0]) <= 0.01 && Math.abs(p[1] - q[1]) <= 0.01;
  for (let s = 0; s < b.length; s++) {
    if (a.every((p, i) => close(p, b[(i + s) % b.length]!))) return true;
    if (a.every((p, i) => close(p, b[(s - i + b.length) % b.length]!))) return true;
  }
  return false;
}

/** What each model type is labelled with in the round trip: every kind it holds, rotated boxes at awkward angles. */
function sourceShapes(type: ModelType, ids: Map<string, number>): NewAnnotation[][] {
  const [a, b] = [ids.get('scratch')!, ids.get('déformation 焊点')!];
  const rbox = (cx: number, cy: number, w: number, h: number, angle: number, text?: string): NewAnnotation => ({ labelId: b, geometry: { kind: 'rbox', cx, cy, w, h, angle, ...(text ? { text } : {}) } });
  const box = (x1: number, y1: number, x2: number, y2: number, text?: string): NewAnnotation => ({ labelId: a, geometry: { kind: 'box', x1, y1, x2, y2, ...(text ? { text } : {}) } });
  const poly = (points: P[], labelId = a): NewAnnotation => ({ labelId, geometry: { kind: 'polygon', points } });
  const pentagon: P[] = [
    [20.25, 30.5],
    [80, 22.125],
    [110.75, 70],
    [60, 120.5],
    [15, 90],
  ];
  if (type === 'SEGMENTATION') return [[poly(pentagon), poly([[130, 10], [200, 15.5], [170, 60.25]], b)], [poly([[5, 5], [50, 5], [50, 40], [5, 40]])]];
  if (type === 'MEASURE') return [[poly(pentagon), rbox(150, 80, 60.5, 20.25, 30)], [rbox(120, 80, 40, 30, 95), rbox(60, 60, 30, 12, -45)]];
  if (type === 'OCR') return [[box(10, 20, 90.5, 50.25, 'AB-123'), rbox(150, 80, 60, 20, 30, 'Ünïcode 7')], [rbox(120, 80, 40, 30, 95, 'x')]];
  return [[box(10, 20, 90.5, 50.25), rbox(150, 80, 60.5, 20.25, 30)], [rbox(120, 80, 40, 30, 95), rbox(60, 60, 30, 12, -45), box(200, 100, 240, 160)]];
}

const TYPES: ModelType[] = ['DETECTION', 'SEGMENTATION', 'MEASURE', 'OCR'];

describe('every export format imports back into a new model with the same shapes (issue 33 item 4)', () => {
  const sources = new Map<ModelType, { model: ModelData; shapes: Shape[] }>();
  beforeAll(async () => {
    for (const type of TYPES) {
      const model = await newModel(t.app, token, type);
      const images = await upload(model, ['a.jpg', 'b.png']);
      const ids = await labelIds(model, ['scratch', 'déformation 焊点']);
      const sets = sourceShapes(type, ids);
      for (const [i, set] of sets.entries()) {
        const r = await call(t.app, 'PUT', `/api/models/${model.id}/images/${images[i]}/annotations`, { baseVersion: 0, annotations: set }, { token });
        expect(r.code, r.message).toBe(0);
      }
      sources.set(type, { model, shapes: await shapesOf(model) });
    }
  });

  const cases = TYPES.flatMap((type) => exportFormatsFor(type).map((format) => [type, format] as [ModelType, ExportFormat]));
  it('covers every format', () => expect(new Set(cases.map(([, f]) => f))).toEqual(new Set(ExportFormats)));

  it.each(cases)('%s as %s', async (type, format) => {
    const src = sources.get(type)!;
    const res = await t.app.inject({ url: `/api/models/${src.model.id}/download/images?format=${format}`, headers: { 'x-token': token } });
    expect(res.statusCode).toBe(200);
    const fresh = await newModel(t.app, token, type);
    // Straight into an empty model: the export carries its images.
    const back = await send<AnnotationImportData>(t.app, token, zipUrl(fresh.id), [{ field: 'file', filename: 'export.zip', data: res.rawPayload }]);
    expect(back.code, `${back.message} ${JSON.stringify(back.data)}`).toBe(0);
    expect(back.data).toMatchObject({ format, imagesAdded: 2, skipped: 0, annotations: src.shapes.length });
    const after = await shapesOf(fresh);
    for (const s of src.shapes) {
      // DOTA has no axis-aligned box: a box comes back as the rotated box at 0° with the same corners. Its
      // class is one whitespace-free word: a space in a label is written as "_".
      const kind = format === 'dota' && s.geometry.kind === 'box' ? 'rbox' : s.geometry.kind;
      const label = format === 'dota' ? s.label.replace(/\s/g, '_') : s.label;
      const twin = after.find((x) => x.image === s.image && x.label === label && x.geometry.kind === kind && sameOutline(corners(x.geometry), corners(s.geometry)));
      expect(twin, `${format}: ${JSON.stringify(s)} among ${JSON.stringify(after)}`).toBeDefined();
      expect(twin!.geometry.text).toBe(s.geometry.text);
    }
    expect(after).toHaveLength(src.shapes.length);
  });
});

describe('the report names every shape left out, by reason, in the user language (issue 33 item 3)', () => {
  const labelme = JSON.stringify({
    version: '5.2.1',
    flags: {},
    imagePath: 'a.jpg',
    imageData: null,
    imageHeight: 160,
    imageWidth: 240,
    shapes: [
      { label: 'bolt', points: [[10, 10], [50, 40]], group_id: null, shape_type: 'rectangle', flags: {} },
      { label: 'bolt', points: [[60, 10], [90, 40]], group_id: null, shape_type: 'rectangle', flags: {} },
      { label: 'bolt', points: [[5, 5]], group_id: null, shape_type: 'point', flags: {} },
      { label: 'bolt', points: [[6, 6]], group_id: null, shape_type: 'point', flags: {} },
      { label: 'edge', points: [[1, 1], [100, 100]], group_id: null, shape_type: 'line', flags: {} },
      { label: 'bolt', points: [[300, 300], [400, 400]], group_id: null, shape_type: 'rectangle', flags: {} },
    ],
  });

  it('in English and in German', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    await upload(m, ['a.jpg']);
    const en = await importZip(m, [{ path: 'labels/a.json', data: labelme }]);
    expect(en.code, en.message).toBe(0);
    expect(en.data).toMatchObject({ format: 'labelme', annotations: 2, skipped: 4 });
    const row = en.data.report.find((r) => r.file === 'labels/a.json')!;
    expect(row).toMatchObject({ format: 'labelme', taken: 2 });
    expect(Object.fromEntries(row.skipped.map((s) => [s.reason, s.message]))).toEqual({
      point: '2 point shapes: points are not a shape Loupe trains on',
      line: '1 line (line, polyline or linestrip): lines are not a shape Loupe trains on',
      outside: '1 shape lying wholly outside its image',
    });
    const de = await importZip(m, [{ path: 'labels/a.json', data: labelme }], 'de');
    const deRow = de.data.report.find((r) => r.file === 'labels/a.json')!;
    expect(deRow.skipped.find((s) => s.reason === 'point')!.message).toBe('2 Punkt-Formen: Punkte sind keine Form, auf der Loupe trainiert');
    expect(deRow.skipped.find((s) => s.reason === 'outside')!.message).toBe('1 Form ganz außerhalb ihres Bildes');
  });

  it('takes the boxes of an Ultralytics pose dataset and names its keypoints', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    await upload(m, ['a.jpg']);
    const r = await importZip(m, [
      { path: 'data.yaml', data: 'kpt_shape: [2, 3]\nnames:\n  0: gripper\n' },
      { path: 'labels/train/a.txt', data: '0 0.5 0.5 0.2 0.2 0.45 0.45 2 0.55 0.45 2\n' },
    ]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ annotations: 1, skipped: 2 });
    expect(r.data.report.find((x) => x.file === 'labels/train/a.txt')!.skipped.map((s) => s.message)).toEqual(['2 point shapes: points are not a shape Loupe trains on']);
  });

  it('names a missing class list and shapes on images that are nowhere', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    await upload(m, ['a.jpg']);
    const r = await importZip(m, [
      { path: 'labels/a.txt', data: '0 0.5 0.5 0.2 0.2\n1 0.2 0.2 0.1 0.1\n' },
      { path: 'labels/nowhere.txt', data: '0 0.5 0.5 0.2 0.2\n' },
    ]);
    expect(r.status).toBe(400);
    const report = (r.data as unknown as AnnotationImportData).report;
    const a = report.find((x) => x.file === 'labels/a.txt')!;
    expect(a.skipped.map((s) => s.message)).toEqual(['2 shapes: no class list found: add classes.txt or data.yaml']);
  });
});

describe('images are matched by name, path or stem; several candidates are reported, not guessed (issue 33 item 2)', () => {
  it('matches exact, without folders and by stem, and reports ambiguity', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    await upload(m, ['part.jpg', 'part.png', 'gear.jpg', 'nut.png']);
    const coco = {
      images: [
        { id: 0, file_name: 'nut.png' },
        { id: 1, file_name: 'train/images/gear.jpg' },
        { id: 2, file_name: 'part' },
      ],
      categories: [{ id: 0, name: 'defect' }],
      annotations: [
        { id: 1, image_id: 0, category_id: 0, bbox: [1, 1, 20, 20] },
        { id: 2, image_id: 1, category_id: 0, bbox: [2, 2, 20, 20] },
        { id: 3, image_id: 2, category_id: 0, bbox: [3, 3, 20, 20] },
      ],
    };
    const r = await importZip(m, [{ path: 'instances.json', data: JSON.stringify(coco) }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ annotations: 2, skipped: 1 });
    const skipped = r.data.report[0]!.skipped[0]!;
    expect(skipped).toMatchObject({ reason: 'ambiguousImage', count: 1 });
    expect(skipped.message).toMatch(/"part", which matches several images \(part\.(jpg|png), part\.(jpg|png)\)/);
    expect((await shapesOf(m)).map((s) => s.image).sort()).toEqual(['gear.jpg', 'nut.png']);
  });
});

describe('a ZIP that carries its images (Roboflow, CVAT, Ultralytics exports)', () => {
  it('adds the images, keeps their splits and annotates them, into an empty model', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    const part = (split: string, name: string, seed: number) => ({
      json: { images: [{ id: 0, file_name: name, width: 240, height: 160 }], categories: [{ id: 0, name: 'parts', supercategory: 'none' }, { id: 1, name: 'crack', supercategory: 'parts' }], annotations: [{ id: 0, image_id: 0, category_id: 1, bbox: [10, 10, 40, 30], area: 1200, segmentation: [], iscrowd: 0 }] },
      split,
      name,
      seed,
    });
    const entries: ZipEntry[] = [];
    for (const p of [part('train', 'x_jpg.rf.1.jpg', 1), part('valid', 'y_jpg.rf.2.jpg', 2), part('test', 'z_jpg.rf.3.jpg', 3)]) {
      entries.push({ path: `${p.split}/_annotations.coco.json`, data: JSON.stringify(p.json) });
      entries.push({ path: `${p.split}/${p.name}`, data: await draw('jpeg', 240, 160, 5000 + p.seed) });
    }
    entries.push({ path: '__MACOSX/train/._x_jpg.rf.1.jpg', data: 'resource fork' });
    entries.push({ path: 'README.roboflow.txt', data: 'Exported via roboflow.com' });
    const r = await importZip(m, entries);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ format: 'coco', imagesAdded: 3, annotations: 3, skipped: 0, labelsCreated: ['crack'] });
    const items = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=200`, undefined, { token })).data.items;
    expect(items.map((i) => [i.name, i.split, i.annotationCount]).sort()).toEqual([
      ['x_jpg.rf.1.jpg', 'train', 1],
      ['y_jpg.rf.2.jpg', 'valid', 1],
      ['z_jpg.rf.3.jpg', 'test', 1],
    ]);
    // The same ZIP again: the images are the model's already (same bytes), only the annotation sets are replaced.
    const again = await importZip(m, entries);
    expect(again.data).toMatchObject({ imagesAdded: 0, imagesMatched: 3, annotations: 3 });
  });

  it('takes one image for the same bytes under two names, with both names\' shapes stored once each', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    const bytes = await draw('jpeg', 240, 160, 4242);
    const coco = {
      images: [
        { id: 1, file_name: 'a.jpg' },
        { id: 2, file_name: 'b.jpg' },
      ],
      categories: [{ id: 1, name: 'pit' }],
      annotations: [
        { id: 1, image_id: 1, category_id: 1, bbox: [10, 10, 20, 20] },
        { id: 2, image_id: 2, category_id: 1, bbox: [10, 10, 20, 20] },
        { id: 3, image_id: 2, category_id: 1, bbox: [100, 50, 30, 30] },
      ],
    };
    const r = await importZip(m, [
      { path: 'a.jpg', data: bytes },
      { path: 'b.jpg', data: bytes },
      { path: 'instances.json', data: JSON.stringify(coco) },
    ]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ imagesAdded: 1, annotations: 2, skipped: 1 });
    expect(r.data.results.map((x) => [x.name, x.message])).toEqual([['b.jpg', 'This image is already in the model.']]);
    expect(r.data.report[0]!.skipped.map((x) => x.message)).toEqual(['1 shape identical to another on the same image (a file, or an image, twice in the ZIP): stored once']);
  });

  it('stores nothing when nothing in it is usable', async () => {
    const m = await newModel(t.app, token, 'DETECTION');
    const r = await importZip(m, [{ path: 'broken.jpg', data: 'not an image' }, { path: 'a.json', data: '{"shapes": [' }]);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images`, undefined, { token })).data.total).toBe(0);
  });
});

describe('classification imports (issue 33 item 5)', () => {
  it('reads class folders, nested one level under split folders, keeping the splits', async () => {
    const m = await newModel(t.app, token, 'classification');
    const img = (seed: number) => draw('png', 64, 64, 9100 + seed);
    const r = await importZip(m, [
      { path: 'dataset/train/ok/1.png', data: await img(1) },
      { path: 'dataset/train/scratch/2.png', data: await img(2) },
      { path: 'dataset/valid/ok/3.png', data: await img(3) },
      { path: 'dataset/valid/scratch/4.png', data: await img(4) },
      { path: 'dataset/test/scratch/5.png', data: await img(5) },
    ]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ format: 'folders', imagesAdded: 5, annotations: 5 });
    expect([...r.data.labelsCreated].sort()).toEqual(['ok', 'scratch']);
    const items = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=200`, undefined, { token })).data.items;
    const labels = new Map((await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data.map((l) => [l.id, l.name]));
    expect(items.map((i) => [i.name, i.split, labels.get(i.classLabelId!)]).sort()).toEqual([
      ['1.png', 'train', 'ok'],
      ['2.png', 'train', 'scratch'],
      ['3.png', 'valid', 'ok'],
      ['4.png', 'valid', 'scratch'],
      ['5.png', 'test', 'scratch'],
    ]);
  });

  it('reads a CSV list of file → class for images already uploaded', async () => {
    const m = await newModel(t.app, token, 'classification');
    await upload(m, ['a.jpg', 'b.jpg', 'c.jpg'], [64, 64]);
    const r = await importZip(m, [{ path: 'labels.csv', data: 'filename,label\r\na.jpg,good\r\nb.jpg,bad\r\nmissing.jpg,bad\r\n' }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ format: 'list', imagesMatched: 2, annotations: 2, skipped: 1 });
    const items = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=200`, undefined, { token })).data.items;
    const labels = new Map((await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data.map((l) => [l.id, l.name]));
    expect(items.map((i) => [i.name, i.classLabelId === null ? null : labels.get(i.classLabelId)]).sort()).toEqual([
      ['a.jpg', 'good'],
      ['b.jpg', 'bad'],
      ['c.jpg', null],
    ]);
  });

  it("reads Loupe's own classification export back, unclassified images included", async () => {
    const m = await newModel(t.app, token, 'classification');
    const up = await send(t.app, token, `/api/models/${m.id}/images/folders`, [
      { filename: 'ok/1.png', data: await draw('png', 48, 48, 9301) },
      { filename: 'ng/2.png', data: await draw('png', 48, 48, 9302) },
    ]);
    expect(up.data.accepted).toBe(2);
    await upload(m, ['3.jpg'], [48, 48]);
    const res = await t.app.inject({ url: `/api/models/${m.id}/download/images?format=coco`, headers: { 'x-token': token } });
    const fresh = await newModel(t.app, token, 'classification');
    const back = await send<AnnotationImportData>(t.app, token, zipUrl(fresh.id), [{ field: 'file', filename: 'export.zip', data: res.rawPayload }]);
    expect(back.code, back.message).toBe(0);
    expect(back.data).toMatchObject({ format: 'folders', imagesAdded: 3, annotations: 2 });
    expect(back.data.report[0]!.skipped.map((x) => x.reason)).toEqual(['noClass']);
    const items = (await call<ImageListData>(t.app, 'GET', `/api/models/${fresh.id}/images?pageSize=200`, undefined, { token })).data.items;
    const labels = new Map((await call<LabelData[]>(t.app, 'GET', `/api/models/${fresh.id}/labels`, undefined, { token })).data.map((l) => [l.id, l.name]));
    expect(items.map((i) => [i.name, i.classLabelId === null ? null : labels.get(i.classLabelId)]).sort()).toEqual([
      ['1.png', 'ok'],
      ['2.png', 'ng'],
      ['3.jpg', null],
    ]);
  });
});
