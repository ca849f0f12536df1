import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { Errors, type AnnotationImportData, type ExportFormat, type ImageAnnotationsData, type ImageListData, type LabelData, type ModelData, type ModelType, type UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken, zip, zipUrl, type ZipEntry } from './gallery-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

async function withImages(names: string[], size: [number, number] = [200, 100], type: ModelType = 'SEGMENTATION') {
  const m = await newModel(t.app, token, type);
  const files = await Promise.all(names.map(async (n, i) => ({ filename: n, data: await draw(n.endsWith('.png') ? 'png' : 'jpeg', size[0], size[1], 100 * m.id + i) })));
  const r = await send<UploadData>(t.app, token, uploadUrl(m.id), files);
  expect(r.data.accepted).toBe(names.length);
  return m;
}

async function importZip(m: ModelData, entries: ZipEntry[], lang?: string) {
  return send<AnnotationImportData>(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'ann.zip', data: await zip(entries) }], lang ? { lang } : {});
}

/** Every image's current annotations as [image name, label name, geometry], sorted. */
async function snapshot(m: ModelData) {
  const labels = new Map((await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data.map((l) => [l.id, l.name]));
  const images = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?pageSize=200`, undefined, { token })).data.items;
  const out: [string, string, unknown][] = [];
  for (const img of images) {
    const a = await call<ImageAnnotationsData>(t.app, 'GET', `/api/models/${m.id}/images/${img.id}/annotations`, undefined, { token });
    for (const x of a.data.annotations) out.push([img.name, labels.get(x.labelId)!, x.geometry]);
  }
  return out.sort((p, q) => JSON.stringify(p).localeCompare(JSON.stringify(q)));
}

const coco = {
  images: [
    { id: 1, file_name: 'a.jpg', width: 200, height: 100 },
    { id: 2, file_name: 'sub/b.png', width: 200, height: 100 },
    { id: 3, file_name: 'missing.jpg', width: 200, height: 100 },
  ],
  categories: [{ id: 7, name: 'scratch' }, { id: 9, name: 'dent' }],
  annotations: [
    { id: 1, image_id: 1, category_id: 7, bbox: [10, 20, 30, 40] },
    { id: 2, image_id: 2, category_id: 9, bbox: [0, 0, 1, 1], segmentation: [[10, 10, 50, 10, 50, 60, 10, 60]] },
    { id: 3, image_id: 3, category_id: 7, bbox: [1, 1, 5, 5] },
    { id: 4, image_id: 1, category_id: 7, bbox: [10, 20, 0, 40] },
  ],
};

describe('annotation ZIP import (SPEC §5 annotation ZIP)', () => {
  it('imports COCO: boxes and polygons, creates labels, reports what matched nothing or is unusable', async () => {
    const m = await withImages(['a.jpg', 'b.png']);
    const r = await importZip(m, [{ path: 'annotations/instances.json', data: JSON.stringify(coco) }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ format: 'coco', imagesMatched: 2, annotations: 2, labelsCreated: ['scratch', 'dent'] });
    expect(r.data.results.map((x) => x.code).sort((p, q) => p! - q!)).toEqual([Errors.annotationNoImage.code, Errors.annotationBadField.code]);
    // The zero-width box is named by file and field.
    expect(r.data.results.find((x) => x.code === Errors.annotationBadField.code)?.message).toBe(
      'The annotation file "annotations/instances.json" cannot be read: "annotations[3].bbox" is missing, of the wrong type or not a usable number. Expected: [x, y, width, height], numbers with width and height above 0.',
    );
    // A segmentation model trains on polygons: the box is stored as its four corners (and reported so).
    expect(await snapshot(m)).toEqual([
      ['a.jpg', 'scratch', { kind: 'polygon', points: [[10, 20], [40, 20], [40, 60], [10, 60]] }],
      ['b.png', 'dent', { kind: 'polygon', points: [[10, 10], [50, 10], [50, 60], [10, 60]] }],
    ]);
    expect(r.data.report[0]!.converted.map((c) => c.message)).toEqual(['1 box stored as a four-corner polygon: segmentation trains on polygons']);
    const model = await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token });
    expect(model.data.labeledImages).toBe(2);
    // a second import replaces the set (a new version), it does not add to it
    const again = await importZip(m, [{ path: 'instances.json', data: JSON.stringify({ ...coco, annotations: [coco.annotations[0]] }) }]);
    expect(again.data.annotations).toBe(1);
    const img = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?name=a.jpg`, undefined, { token })).data.items[0]!;
    const ann = await call<ImageAnnotationsData>(t.app, 'GET', `/api/models/${m.id}/images/${img.id}/annotations`, undefined, { token });
    expect(ann.data).toMatchObject({ version: 2 });
    expect(ann.data.annotations).toHaveLength(1);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.labeledImages).toBe(1);
  });

  it('deleting a label removes its annotations and updates the labeled count', async () => {
    const m = await withImages(['a.jpg', 'b.png']);
    await importZip(m, [{ path: 'instances.json', data: JSON.stringify(coco) }]);
    const labels = (await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data;
    expect(labels.map((l) => [l.name, l.imageCount])).toEqual([['scratch', 1], ['dent', 1]]);
    const dent = labels.find((l) => l.name === 'dent')!;
    expect((await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?labelId=${dent.id}`, undefined, { token })).data.items.map((i) => i.name)).toEqual(['b.png']);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/models/${m.id}/labels/${dent.id}`, headers: { 'x-token': token } });
    expect(del.json()).toMatchObject({ code: 0 });
    expect(await snapshot(m)).toEqual([['a.jpg', 'scratch', { kind: 'polygon', points: [[10, 20], [40, 20], [40, 60], [10, 60]] }]]);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.labeledImages).toBe(1);
    expect((await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images?filter=unlabeled`, undefined, { token })).data.items.map((i) => i.name)).toEqual(['b.png']);
  });

  it('imports Pascal VOC XML and refuses any DOCTYPE or ENTITY', async () => {
    const m = await withImages(['a.jpg'], [200, 100], 'DETECTION');
    const voc = (name: string) =>
      `<annotation><filename>a.jpg</filename><size><width>200</width><height>100</height></size><object><name>${name}</name><bndbox><xmin>5</xmin><ymin>6</ymin><xmax>50</xmax><ymax>60</ymax></bndbox></object></annotation>`;
    const r = await importZip(m, [{ path: 'Annotations/a.xml', data: voc('bolt') }]);
    expect(r.data).toMatchObject({ format: 'voc', annotations: 1 });
    expect(await snapshot(m)).toEqual([['a.jpg', 'bolt', { kind: 'box', x1: 5, y1: 6, x2: 50, y2: 60 }]]);
    const xxe = `<?xml version="1.0"?><!DOCTYPE annotation [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${voc('&xxe;')}`;
    const bad = await importZip(m, [{ path: 'a.xml', data: xxe }], 'zh');
    expect(bad).toMatchObject({ status: 400, code: Errors.xmlDoctype.code, message: 'XML 文件“a.xml”包含 DOCTYPE 或 ENTITY 声明，已被拒绝。' });
    expect(await snapshot(m)).toEqual([['a.jpg', 'bolt', { kind: 'box', x1: 5, y1: 6, x2: 50, y2: 60 }]]);
  });

  it('imports LabelMe polygons and rectangles', async () => {
    const m = await withImages(['a.jpg'], [200, 100], 'MEASURE');
    const lm = {
      version: '5.4.1',
      imagePath: '..\\images\\a.jpg',
      imageWidth: 200,
      imageHeight: 100,
      shapes: [
        { label: 'crack', shape_type: 'polygon', points: [[1, 2], [30, 2], [30, 40]] },
        { label: 'pit', shape_type: 'rectangle', points: [[50, 60], [10, 20]] },
        { label: 'pit', shape_type: 'circle', points: [[5, 5], [6, 6]] },
      ],
    };
    const r = await importZip(m, [{ path: 'a.json', data: JSON.stringify(lm) }]);
    // A circle is a polygon now (issue 33); a measurement model keeps a rectangle as a rotated box at 0°.
    expect(r.data).toMatchObject({ format: 'labelme', annotations: 3 });
    expect(r.data.results).toHaveLength(0);
    const snap = await snapshot(m);
    expect(snap.slice(0, 2)).toEqual([
      ['a.jpg', 'crack', { kind: 'polygon', points: [[1, 2], [30, 2], [30, 40]] }],
      ['a.jpg', 'pit', { kind: 'polygon', points: expect.any(Array) }],
    ]);
    expect(snap[2]).toEqual(['a.jpg', 'pit', { kind: 'rbox', cx: 30, cy: 40, w: 40, h: 40, angle: 0 }]);
  });

  it('imports YOLO txt with classes.txt or data.yaml names', async () => {
    const m = await withImages(['a.jpg', 'b.png'], [200, 100], 'DETECTION');
    const r = await importZip(m, [
      { path: 'labels/a.txt', data: '0 0.5 0.5 0.2 0.4\n1 0.1 0.1 0.3 0.1 0.3 0.5\n' },
      { path: 'labels/b.txt', data: '1 0.25 0.5 0.5 1\n' },
      { path: 'labels/zzz.txt', data: '0 0.5 0.5 0.1 0.1\n' },
      { path: 'data.yaml', data: 'path: .\nnames:\n  0: nut\n  1: "washer"\n' },
    ]);
    expect(r.code, r.message).toBe(0);
    // The segment line becomes its bounding box on a detection model (reported as converted).
    expect(r.data).toMatchObject({ format: 'yolo', annotations: 3, labelsCreated: ['nut', 'washer'] });
    expect(r.data.report.find((x) => x.file === 'labels/zzz.txt')!.skipped.map((x) => x.reason)).toEqual(['noImage']);
    const snap = await snapshot(m);
    expect(snap[0]).toEqual(['a.jpg', 'nut', { kind: 'box', x1: 80, y1: 30, x2: 120, y2: 70 }]);
    expect(snap[2]).toEqual(['b.png', 'washer', { kind: 'box', x1: 0, y1: 0, x2: 100, y2: 100 }]);
    const m2 = await withImages(['c.jpg']);
    const r2 = await importZip(m2, [{ path: 'c.txt', data: '0 0.5 0.5 0.5 0.5' }, { path: 'classes.txt', data: 'gear\n' }]);
    expect(r2.data).toMatchObject({ format: 'yolo', labelsCreated: ['gear'] });
  });

  it('says so when images are missing, the ZIP holds nothing usable, or the file is not a ZIP', async () => {
    const empty = await newModel(t.app, token, 'DETECTION');
    const first = await send(t.app, token, zipUrl(empty.id), [{ field: 'file', filename: 'a.zip', data: await zip([{ path: 'x.json', data: JSON.stringify(coco) }]) }], { lang: 'ru' });
    expect(first).toMatchObject({ status: 409, code: Errors.annotationsBeforeImages.code, message: 'Сначала загрузите изображения, затем ZIP-архив с разметкой.' });
    const m = await withImages(['q.jpg']);
    const none = await importZip(m, [{ path: 'readme.md', data: 'hello' }, { path: 'x.json', data: JSON.stringify(coco) }]);
    expect(none).toMatchObject({ status: 400, code: Errors.noValidAnnotations.code });
    expect(await snapshot(m)).toEqual([]);
    expect((await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data).toEqual([]);
    const notZip = await send(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'a.zip', data: Buffer.from('PK but not really a zip file') }]);
    expect(notZip.code).toBe(Errors.zipInvalid.code);
    // A classification model takes class folders and lists (issue 33), but not before it has images or the ZIP brings some.
    const cls = await newModel(t.app, token, 'classification');
    expect((await send(t.app, token, zipUrl(cls.id), [{ field: 'file', filename: 'a.zip', data: await zip([]) }])).code).toBe(Errors.annotationsBeforeImages.code);
  });
});

async function unzip(buf: Buffer): Promise<Map<string, Buffer>> {
  const zf = await new Promise<yauzl.ZipFile>((res, rej) => yauzl.fromBuffer(buf, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z))));
  const out = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zf.on('entry', (entry: yauzl.Entry) =>
      zf.openReadStream(entry, (err, s) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        s.on('data', (c: Buffer) => chunks.push(c));
        s.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks));
          zf.readEntry();
        });
      }),
    );
    zf.on('end', resolve);
    zf.readEntry();
  });
  return out;
}

describe('export (SPEC /download/downloadImage) re-imports to the same annotations', () => {
  const source = {
    images: [{ id: 1, file_name: 'a.jpg' }, { id: 2, file_name: 'b.png' }, { id: 3, file_name: 'c.jpg' }],
    categories: [{ id: 1, name: 'scratch' }, { id: 2, name: 'dent' }],
    annotations: [
      { image_id: 1, category_id: 1, bbox: [10.5, 20, 30, 40] },
      { image_id: 1, category_id: 2, bbox: [100, 10, 50, 50] },
      { image_id: 2, category_id: 2, segmentation: [[10, 10, 60, 12.25, 40, 70, 5, 50]], bbox: [5, 10, 55, 60] },
    ],
  };
  it.each(['coco', 'voc', 'yolo', 'labelme', 'cvat'] as ExportFormat[])('%s', async (format) => {
    const m = await withImages(['a.jpg', 'b.png', 'c.jpg']);
    await importZip(m, [{ path: 'instances.json', data: JSON.stringify(source) }]);
    const before = await snapshot(m);
    expect(before).toHaveLength(3);
    const res = await t.app.inject({ url: `/api/models/${m.id}/download/images?format=${format}`, headers: { 'x-token': token } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const files = await unzip(res.rawPayload);
    const images = [...files.keys()].filter((f) => /\.(jpg|png)$/.test(f));
    expect(images).toHaveLength(3);
    // the exported bytes are the uploaded originals
    const list = (await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images`, undefined, { token })).data.items;
    const orig = await t.app.inject({ url: list.find((i) => i.name === 'a.jpg')!.originalUrl, headers: { 'x-token': token } });
    expect(files.get(images.find((f) => f.endsWith('a.jpg'))!)!.equals(orig.rawPayload)).toBe(true);
    // the same images in a fresh model, then the exported ZIP as the annotation upload
    const fresh = await newModel(t.app, token, 'SEGMENTATION');
    const up = await send<UploadData>(t.app, token, uploadUrl(fresh.id), images.map((f) => ({ filename: f.split('/').pop()!, data: files.get(f)! })));
    expect(up.data.accepted).toBe(3);
    const back = await send<AnnotationImportData>(t.app, token, zipUrl(fresh.id), [{ field: 'file', filename: 'export.zip', data: res.rawPayload }]);
    expect(back.code, back.message).toBe(0);
    expect(back.data.format).toBe(format);
    const after = await snapshot(fresh);
    expect(after.map(([i, l, g]) => [i, l, (g as { kind: string }).kind])).toEqual(before.map(([i, l, g]) => [i, l, (g as { kind: string }).kind]));
    // coordinates survive (YOLO normalises to 6 decimals)
    const nums = (g: unknown) => JSON.stringify(g).match(/-?\d+(\.\d+)?/g)!.map(Number);
    after.forEach(([, , g], i) => nums(g).forEach((v, j) => expect(v).toBeCloseTo(nums(before[i]![2])[j]!, 2)));
  });

  it('exports a classification model as label folders the folder upload reads back', async () => {
    const m = await newModel(t.app, token, 'classification');
    await send(t.app, token, `/api/models/${m.id}/images/folders`, [
      { filename: 'ok/1.png', data: await draw('png', 40, 40, 4001) },
      { filename: 'ng/2.png', data: await draw('png', 40, 40, 4002) },
    ]);
    const res = await t.app.inject({ url: `/api/models/${m.id}/download/images?format=coco`, headers: { 'x-token': token } });
    expect([...(await unzip(res.rawPayload)).keys()].sort()).toEqual(['ng/2.png', 'ok/1.png']);
    expect((await t.app.inject({ url: `/api/models/${m.id}/download/images?format=coco` })).statusCode).toBe(401);
  });
});
