import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClassificationModeData, ImageClassesData, ImageData, ImageListData, LabelData, ModelData, PackStatusData, TestRunData, TrainingData, UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { detail, start, waitFor } from './training-fixtures.js';
import { downloader, unzip, waitForPack } from './delivery-fixtures.js';
import { folderUrl, newModel, send, uploadUrl } from './gallery-fixtures.js';
import { runImages, splitImages, testRun } from './task-fixtures.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-multi-'));

/** A few seconds of pico training at 64 px (as in classification.test.ts). */
const PARAMS = { model: 'p', imgsz: 64, epochs: 2, batch: 8, workers: 0, warmup_epochs: 0, seed: 3, fliplr: 0, hsv_h: 0, hsv_s: 0, hsv_v: 0 };
const SIZE = 64;
const NAMES = ['disc', 'square'] as const;

/** Image i shows nothing (i % 4 = 0), a bright disc on the left (1), a blue square on the right (2) or both (3). */
const shapesOf = (i: number): (typeof NAMES)[number][] => NAMES.filter((_, k) => ((i % 4) >> k) & 1);

function drawn(i: number): Promise<Buffer> {
  const px = Buffer.alloc(SIZE * SIZE * 3);
  let s = (i + 1) * 2654435761 + 11;
  for (let p = 0; p < px.length; p++) {
    s = (s * 1103515245 + 12345) >>> 0;
    px[p] = 40 + ((s >>> 16) % 15);
  }
  const shapes = shapesOf(i);
  const dx = (i * 5) % 8;
  const dy = (i * 7) % 30;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const disc = shapes.includes('disc') && (x - 14 - dx) ** 2 + (y - 16 - dy) ** 2 <= 100;
      const square = shapes.includes('square') && x >= 38 + dx / 2 && x < 58 && y >= 8 + dy && y < 28 + dy;
      if (disc) px.set([240, 240, 240], (y * SIZE + x) * 3);
      if (square) px.set([130, 130, 200], (y * SIZE + x) * 3);
    }
  }
  return sharp(px, { raw: { width: SIZE, height: SIZE, channels: 3 } }).png().toBuffer();
}

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  ({ token } = await downloader(t.app));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Multi {
  model: ModelData;
  images: number[];
  labels: Record<(typeof NAMES)[number], number>;
}

async function multiModel(count: number): Promise<Multi> {
  const model = await newModel(t.app, token, 'classification');
  const files = await Promise.all(Array.from({ length: count }, async (_, i) => ({ filename: `multi_${i}.png`, data: await drawn(i) })));
  const up = await send<UploadData>(t.app, token, uploadUrl(model.id), files);
  expect(up.data.accepted, up.message).toBe(count);
  const labels = {} as Multi['labels'];
  for (const name of NAMES) labels[name] = (await call<LabelData>(t.app, 'POST', `/api/models/${model.id}/labels`, { name }, { token })).data.id;
  return { model, images: up.data.results.map((r) => r.imageId!), labels };
}

const mode = (modelId: number, multiLabel: boolean, lang?: string) =>
  call<ClassificationModeData>(t.app, 'PUT', `/api/models/${modelId}/classification-mode`, { multiLabel }, { token, lang });
const setClasses = (modelId: number, imageId: number, labelIds: number[], none?: boolean) =>
  call<ImageClassesData>(t.app, 'PUT', `/api/models/${modelId}/images/${imageId}/classes`, { labelIds, ...(none !== undefined ? { none } : {}) }, { token });
const setClass = (modelId: number, imageId: number, labelId: number | null) => call(t.app, 'PUT', `/api/models/${modelId}/images/${imageId}/class`, { labelId }, { token });
const getModel = async (modelId: number) => (await call<ModelData>(t.app, 'GET', `/api/models/${modelId}`, undefined, { token })).data;
async function gallery(modelId: number, query = ''): Promise<Map<number, ImageData>> {
  const r = await call<ImageListData>(t.app, 'GET', `/api/models/${modelId}/images${query}`, undefined, { token });
  expect(r.code, r.message).toBe(0);
  return new Map(r.data.items.map((i) => [i.id, i]));
}
async function labelCounts(modelId: number): Promise<Record<string, number>> {
  const r = await call<LabelData[]>(t.app, 'GET', `/api/models/${modelId}/labels`, undefined, { token });
  return Object.fromEntries(r.data.map((l) => [l.name, l.imageCount]));
}

describe('several classes per image: the option and the labels', () => {
  it('is off for a new model; switching on moves each image’s class into its set and raises the data version', async () => {
    const m = await multiModel(4);
    const [a, b, c] = m.images as [number, number, number];
    expect((await getModel(m.model.id)).multiLabel).toBe(false);
    expect((await setClass(m.model.id, a, m.labels.disc)).code).toBe(0);
    expect((await setClass(m.model.id, b, m.labels.square)).code).toBe(0);
    // A single-label model takes one class, not sets.
    const refused = await setClasses(m.model.id, a, [m.labels.disc]);
    expect([refused.status, refused.code]).toEqual([409, 30037]);

    const before = (await getModel(m.model.id)).dataVersion;
    const on = await mode(m.model.id, true);
    expect(on.code, on.message).toBe(0);
    expect(on.data).toEqual({ multiLabel: true, dataVersion: before + 1 });
    expect((await getModel(m.model.id)).multiLabel).toBe(true);
    const g = await gallery(m.model.id);
    expect([g.get(a)!.classLabelIds, g.get(a)!.classLabelId, g.get(a)!.labeled]).toEqual([[m.labels.disc], null, true]);
    expect([g.get(b)!.classLabelIds, g.get(b)!.labeled]).toEqual([[m.labels.square], true]);
    expect([g.get(c)!.classLabelIds, g.get(c)!.noClass, g.get(c)!.labeled]).toEqual([[], false, false]);
    // Asking again changes nothing.
    expect((await mode(m.model.id, true)).data.dataVersion).toBe(before + 1);
    // …and the one-class call is refused now.
    expect((await setClass(m.model.id, a, m.labels.square)).code).toBe(30037);
    // A detection model has no such option.
    const det = await newModel(t.app, token, 'DETECTION');
    expect((await mode(det.id, true)).code).toBe(30026);
    expect((await getModel(det.id)).multiLabel).toBe(false);
  });

  it('holds sets: counts, label filter, unknown labels refused whole, the same set again leaves trainings current, confirmed none', async () => {
    const m = await multiModel(4);
    const [a, b, c, d] = m.images as [number, number, number, number];
    await mode(m.model.id, true);
    const both = await setClasses(m.model.id, a, [m.labels.square, m.labels.disc, m.labels.square]);
    expect(both.data).toEqual({ imageId: a, classLabelIds: [m.labels.disc, m.labels.square].sort((x, y) => x - y), noClass: false, labeled: true });
    expect((await setClasses(m.model.id, b, [m.labels.square])).code).toBe(0);
    expect(await labelCounts(m.model.id)).toEqual({ disc: 1, square: 2 });
    expect([...(await gallery(m.model.id, `?labelId=${m.labels.square}`)).keys()].sort()).toEqual([a, b].sort());
    expect([...(await gallery(m.model.id, '?filter=labeled')).keys()].sort()).toEqual([a, b].sort());
    expect((await getModel(m.model.id)).labeledImages).toBe(2);

    const version = (await getModel(m.model.id)).dataVersion;
    expect((await setClasses(m.model.id, a, [m.labels.square, m.labels.disc])).code).toBe(0);
    expect((await getModel(m.model.id)).dataVersion).toBe(version);

    const unknown = await setClasses(m.model.id, a, [m.labels.disc, 999_999]);
    expect([unknown.status, unknown.code]).toEqual([400, 30035]);
    expect(unknown.message).toContain('999999');
    expect((await gallery(m.model.id)).get(a)!.classLabelIds).toHaveLength(2);
    expect((await setClasses(m.model.id, c, [m.labels.disc], true)).code).toBe(20001);

    // "None of these" is a labeled negative; an empty set without it (0, clear) is unlabeled again.
    const none = await setClasses(m.model.id, c, [], true);
    expect(none.data).toEqual({ imageId: c, classLabelIds: [], noClass: true, labeled: true });
    expect((await getModel(m.model.id)).dataVersion).toBe(version + 1);
    expect((await setClasses(m.model.id, d, [m.labels.disc])).code).toBe(0);
    const cleared = await setClasses(m.model.id, d, []);
    expect(cleared.data).toEqual({ imageId: d, classLabelIds: [], noClass: false, labeled: false });
    // A class replaces the confirmed none.
    expect((await setClasses(m.model.id, c, [m.labels.disc])).data).toMatchObject({ noClass: false, labeled: true });
    expect((await setClasses(m.model.id, c, [], true)).data.noClass).toBe(true);

    // Back to one class per image is refused while an image holds two, naming it, and nothing moves.
    const refused = await mode(m.model.id, false, 'de');
    expect([refused.status, refused.code]).toEqual([409, 30036]);
    expect(refused.message).toContain('multi_0.png');
    expect(refused.message).toContain('Klasse');
    expect((await mode(m.model.id, false, 'zh')).message).toContain('multi_0.png');
    expect((await getModel(m.model.id)).multiLabel).toBe(true);
    expect((await gallery(m.model.id)).get(a)!.classLabelIds).toHaveLength(2);

    expect((await setClasses(m.model.id, a, [m.labels.square])).code).toBe(0);
    const off = await mode(m.model.id, false);
    expect(off.code, off.message).toBe(0);
    const g = await gallery(m.model.id);
    expect([g.get(a)!.classLabelId, g.get(b)!.classLabelId, g.get(a)!.classLabelIds]).toEqual([m.labels.square, m.labels.square, undefined]);
    // Single-label has no negatives: the confirmed none is unlabeled there.
    expect([g.get(c)!.classLabelId, g.get(c)!.labeled]).toEqual([null, false]);
    expect(await labelCounts(m.model.id)).toEqual({ disc: 0, square: 2 });

    // Deleting a label takes it out of every set; images left without a class are unlabeled.
    await mode(m.model.id, true);
    expect((await setClasses(m.model.id, b, [m.labels.square, m.labels.disc])).code).toBe(0);
    expect((await call(t.app, 'DELETE', `/api/models/${m.model.id}/labels/${m.labels.square}`, undefined, { token })).code).toBe(0);
    const after = await gallery(m.model.id);
    expect([after.get(a)!.classLabelIds, after.get(a)!.labeled]).toEqual([[], false]);
    expect([after.get(b)!.classLabelIds, after.get(b)!.labeled]).toEqual([[m.labels.disc], true]);
  });
});

describe('auto split and dataset export of a multi-label model', () => {
  it('counts each image for every class it holds, so each class gets training and validation images', async () => {
    const m = await multiModel(8);
    await mode(m.model.id, true);
    for (const [i, id] of m.images.entries()) await setClasses(m.model.id, id, shapesOf(i).map((n) => m.labels[n]), shapesOf(i).length === 0);
    const r = await call(t.app, 'POST', `/api/models/${m.model.id}/images/auto-split`, { confirm: true, ratios: { train: 0.5, valid: 0.5, test: 0 } }, { token });
    expect(r.code, r.message).toBe(0);
    const g = await gallery(m.model.id);
    for (const name of NAMES) {
      const splits = [...g.values()].filter((i) => i.classLabelIds!.includes(m.labels[name])).map((i) => i.split);
      expect(splits, name).toContain('train');
      expect(splits, name).toContain('valid');
    }

    // The dataset export puts an image into the folder of each of its classes, a confirmed negative into _none.
    const zip = await t.app.inject({ url: `/api/models/${m.model.id}/download/images?format=coco`, headers: { 'x-token': token } });
    expect(zip.statusCode).toBe(200);
    const names = (await unzip(zip.rawPayload, path.join(work, 'dataset'))).filter((n) => n.endsWith('.png')).sort();
    expect(names).toEqual(['_none/multi_0.png', '_none/multi_4.png', 'disc/multi_1.png', 'disc/multi_3.png', 'disc/multi_5.png', 'disc/multi_7.png', 'square/multi_2.png', 'square/multi_3.png', 'square/multi_6.png', 'square/multi_7.png']);
  });

  it('a folder upload into a multi-label model gives each image its folder’s class as a set of one', async () => {
    const model = await newModel(t.app, token, 'classification');
    expect((await mode(model.id, true)).code).toBe(0);
    const up = await send<UploadData>(t.app, token, folderUrl(model.id), [
      { filename: 'disc/a.png', data: await drawn(1) },
      { filename: 'square/b.png', data: await drawn(2) },
    ]);
    expect(up.data.accepted, up.message).toBe(2);
    const labels = (await call<LabelData[]>(t.app, 'GET', `/api/models/${model.id}/labels`, undefined, { token })).data;
    const idOf = (name: string) => labels.find((l) => l.name === name)!.id;
    const g = [...(await gallery(model.id)).values()].map((i) => [i.name, i.classLabelId, i.classLabelIds, i.labeled]).sort();
    expect(g).toEqual([
      ['a.png', null, [idOf('disc')], true],
      ['b.png', null, [idOf('square')], true],
    ]);
  });
});

describe('a multi-label model on the real engine', () => {
  const COUNT = 32;
  let m: Multi;
  let training: TrainingData;
  let tested: TestRunData;
  const truthOf = (i: number) => shapesOf(i).map((n) => m.labels[n]).sort((x, y) => x - y);

  it('8001 with confirmed negatives only, 40002 per class, then trains with category_ids (multi_label summary)', async () => {
    m = await multiModel(COUNT);
    expect((await mode(m.model.id, true)).code).toBe(0);
    for (const id of m.images) expect((await setClasses(m.model.id, id, [], true)).code).toBe(0);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 20], valid: [20, 26], test: [26, COUNT] });
    expect((await start(t.app, token, m.model.id, PARAMS)).code).toBe(8001);

    // Squares (i % 4 = 2, 3) only among the training images: validation holds discs and negatives only.
    for (const [i, id] of m.images.entries()) {
      const set = i >= 20 && i < 26 ? truthOf(i).filter((l) => l !== m.labels.square) : truthOf(i);
      expect((await setClasses(m.model.id, id, set, set.length === 0)).code).toBe(0);
    }
    const r40002 = await start(t.app, token, m.model.id, PARAMS, 'ru');
    expect([r40002.status, r40002.code]).toEqual([409, 40002]);
    expect(r40002.message).toContain('square');

    for (const [i, id] of m.images.entries()) expect((await setClasses(m.model.id, id, truthOf(i), truthOf(i).length === 0)).code).toBe(0);
    const r = await start(t.app, token, m.model.id, PARAMS);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'classify', labeledImages: COUNT, labelKinds: 2 });
    training = await waitFor(t.app, token, m.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    expect(training.status, training.error ?? '').toBe('succeeded');
    const d = await detail(t.app, token, m.model.id, training.id);
    // The engine reads the task as multi-label only from category_ids in the manifest.
    expect(d.summary).toMatchObject({ task: 'classify', multi_label: true });
    expect(d.summary).toHaveProperty('mAP');
  }, 90_000);

  it('tests at the multi-label threshold: predicted set against the true set, tp/fp/fn per class, correct = exact match', async () => {
    tested = await testRun(t.app, token, m.model.id, { settings: { conf: 0.5 } });
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    expect(tested.summary).toMatchObject({ images: 6, multi_label: true, conf: 0.5 });
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    expect(items).toHaveLength(6);
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let exact = 0;
    const byId = new Map(m.images.map((id, i) => [id, i]));
    for (const img of items) {
      const c = img.classification!;
      const truth = truthOf(byId.get(img.imageId)!);
      expect(c.multiLabel).toBe(true);
      expect(c.truthLabelIds).toEqual(truth);
      expect(c.truthLabelId).toBeNull();
      // The set is every class whose probability reaches the threshold.
      const above = Object.entries(c.scores).filter(([, p]) => p >= 0.5).map(([id]) => Number(id)).sort((x, y) => x - y);
      expect(c.labelIds).toEqual(above);
      expect(c.confidence).toBe(Math.max(...Object.values(c.scores)));
      const want = [c.labelIds!.filter((l) => truth.includes(l)).length, c.labelIds!.filter((l) => !truth.includes(l)).length, truth.filter((l) => !c.labelIds!.includes(l)).length];
      expect([img.tp, img.fp, img.fn]).toEqual(want);
      expect(c.correct).toBe(want[1] === 0 && want[2] === 0);
      tp += img.tp;
      fp += img.fp;
      fn += img.fn;
      if (c.correct) exact++;
    }
    console.log(`multi-label test: exact ${exact}/6, tp ${tp} fp ${fp} fn ${fn}; engine accuracy ${tested.summary!.accuracy}, mAP ${tested.summary!.mAP}`);
    expect([tested.tp, tested.fp, tested.fn]).toEqual([tp, fp, fn]);
    // The engine's exact-match accuracy on the same images agrees with the platform's.
    expect(exact / 6).toBeCloseTo(tested.summary!.accuracy as number, 6);
    const errors = await runImages(t.app, token, m.model.id, tested.id, '?filter=errors');
    expect(errors.total).toBe(items.filter((i) => i.fp + i.fn > 0).length);
  }, 60_000);

  it('exports an SDK whose Node example gives the classes above the threshold, as the test did', async () => {
    const pack = (extra: Record<string, unknown>) => call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: m.model.id, inputW: 64, inputH: 64, maxDet: 1, rotated: false, ...extra }, { token });
    expect((await pack({ kind: 'sdk', sdkType: 'cpu' })).code).toBe(0);
    const done = await waitForPack(t.app, token, m.model.id, 'sdk');
    expect(done.packStatus, done.error ?? '').toBe('success');
    const zip = await t.app.inject({ method: 'GET', url: `/api/train/download/${done.id}/64/64`, headers: { 'x-token': token } });
    const dir = path.join(work, 'sdk');
    expect(await unzip(zip.rawPayload, dir)).toContain('model.onnx');
    const sdk = JSON.parse(fs.readFileSync(path.join(dir, 'sdk.json'), 'utf8')) as { task: string; conf: number };
    expect(sdk.task).toBe('classify');
    fs.mkdirSync(path.join(dir, 'node', 'node_modules'));
    for (const dep of ['onnxruntime-node', 'sharp']) fs.symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(dir, 'node', 'node_modules', dep));

    // The same images through the runtime: classify() keeps exactly the classes whose probability reaches the
    // model's threshold, with the probabilities the platform's test gave.
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    const nameOf = (id: number) => NAMES.find((n) => m.labels[n] === id)!;
    const byId = new Map(m.images.map((id, i) => [id, i]));
    for (const img of items.slice(0, 3)) {
      const probe = path.join(work, `probe-${img.imageId}.png`);
      await fs.promises.writeFile(probe, await drawn(byId.get(img.imageId)!));
      const out = await run(process.execPath, ['example.mjs', probe], { cwd: path.join(dir, 'node') });
      const res = JSON.parse(out.stdout) as { task: string; classes: { label: string; score: number }[] };
      const c = img.classification!;
      const above = Object.entries(c.scores).filter(([, p]) => p >= sdk.conf).sort((x, y) => y[1] - x[1]);
      expect(res.classes.map((k) => k.label)).toEqual(above.map(([id]) => nameOf(Number(id))));
      for (const [k, [, p]] of above.entries()) expect(Math.abs(res.classes[k]!.score - p)).toBeLessThan(1e-3);
    }
  }, 60_000);
});
