import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageListData, PackStatusData, TestResultsData, TestRunData, TrainingData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { detail, start, waitFor } from './training-fixtures.js';
import { downloader, unzip, waitForPack } from './delivery-fixtures.js';
import { runImages, shapeImage, shapesModel, splitImages, SHAPES, testRun } from './task-fixtures.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PY = '/usr/bin/python3';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-classify-'));

/** A few seconds of pico training at 64 px: enough to tell a bright disc from a blue square most of the time. */
const PARAMS = { model: 'p', imgsz: 64, epochs: 3, batch: 8, workers: 0, warmup_epochs: 0, seed: 3, fliplr: 0, hsv_h: 0, hsv_s: 0, hsv_v: 0 };
const COUNT = 36;

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

const setClass = (modelId: number, imageId: number, labelId: number | null) => call(t.app, 'PUT', `/api/models/${modelId}/images/${imageId}/class`, { labelId }, { token });

describe('classification training rules (SPEC §5, §8)', () => {
  it('8001 without classes, 40002 for a class without a validation image, 40012 with one class only', async () => {
    const m = await shapesModel(t.app, token, 'classification', 6);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 4], valid: [4, 6] });
    expect((await start(t.app, token, m.model.id)).code).toBe(8001);

    // Both classes, but the squares (odd images) only in training.
    for (const [i, id] of m.images.entries()) expect((await setClass(m.model.id, id, m.labels[SHAPES[i % 2]!])).code).toBe(0);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 6], valid: [4, 5] });
    const r = await start(t.app, token, m.model.id, PARAMS, 'de');
    expect([r.status, r.code]).toEqual([409, 40002]);
    expect(r.message).toContain('square');

    // Discs only: nothing to tell apart.
    for (const id of m.images.filter((_, i) => i % 2 === 1)) await setClass(m.model.id, id, null);
    const one = await start(t.app, token, m.model.id, PARAMS, 'ru');
    expect([one.status, one.code]).toEqual([409, 40012]);
    expect(one.message).toContain('1');
  });
});

describe('a classification model on the real engine', () => {
  let m: Awaited<ReturnType<typeof shapesModel>>;
  let training: TrainingData;
  let tested: TestRunData;

  it('trains on the images’ classes: task classify, accuracy = top-1, per-epoch top1 and the evaluation', async () => {
    m = await shapesModel(t.app, token, 'classification', COUNT);
    for (const [i, id] of m.images.entries()) expect((await setClass(m.model.id, id, m.labels[SHAPES[i % 2]!])).code).toBe(0);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 24], valid: [24, 30], test: [30, COUNT] });
    const r = await start(t.app, token, m.model.id, PARAMS);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'classify', rotated: false, labeledImages: COUNT, labelKinds: 2 });
    training = await waitFor(t.app, token, m.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    expect(training.status, training.error ?? '').toBe('succeeded');

    const d = await detail(t.app, token, m.model.id, training.id);
    expect(d.summary).toMatchObject({ task: 'classify', multi_label: false });
    // SPEC §5: 36 labelled images (≥ 30), so the accuracy shows: the classifier's top-1.
    expect(d.accuracy).toBe(d.summary!.top1);
    expect(d.history.length).toBeGreaterThan(0);
    expect(d.history.at(-1)!.metrics).toHaveProperty('top1');
    expect(Object.keys(d.evaluation!.per_class).sort()).toEqual(['disc', 'square']);
    expect(d.evaluation!.confusion_matrix).toHaveLength(2);
    // The confusion matrix counts the 6 validation images.
    expect(d.evaluation!.confusion_matrix!.flat().reduce((a, b) => a + b, 0)).toBe(6);
  }, 60_000);

  it('tests the test split with 8 views: each image’s class and probability against its own class', async () => {
    // Test-time augmentation averages a classifier's probabilities over the image's flips and turns.
    tested = await testRun(t.app, token, m.model.id, { settings: { tta: 'dihedral' } });
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    expect(tested.summary).toMatchObject({ images: 6, multi_label: false, tta: 'dihedral' });
    expect(tested.settings.tta).toBe('dihedral');
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    expect(items).toHaveLength(6);
    for (const [k, img] of items.entries()) {
      const want = m.labels[SHAPES[(30 + k) % 2]!];
      const c = img.classification!;
      expect(c.truthLabelId).toBe(want);
      expect(c.correct).toBe(c.labelId === want);
      expect([img.tp, img.fp, img.fn]).toEqual(c.correct ? [1, 0, 0] : [0, 1, 1]);
      // Softmax over the two classes: the top one has at least half, and the two add up to one.
      const scores = Object.values(c.scores);
      expect(c.confidence).toBe(Math.max(...scores));
      expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 3);
      expect(img.predictions).toEqual([]);
    }
    console.log(`classify test: top-1 ${tested.summary!.top1}, tp ${tested.tp} fp ${tested.fp}; validation top-1 ${training.accuracy ?? '?'}`);
    // The platform's counts agree with the engine's own top-1 on the same images.
    expect(tested.tp / 6).toBeCloseTo(tested.summary!.top1 as number, 6);
    expect(tested.fp).toBe(tested.fn);
    expect(tested.tp + tested.fp).toBe(6);
    const errors = await runImages(t.app, token, m.model.id, tested.id, '?filter=errors');
    expect(errors.total).toBe(tested.fp);

    // The gallery counts every classified image as tested with a result; there are no boxes to draw.
    const gallery = await call<ImageListData>(t.app, 'GET', `/api/models/${m.model.id}/images?filter=testedWithResults`, undefined, { token });
    expect(gallery.data.items.map((i) => i.id).sort()).toEqual(m.images.slice(30).sort());
    const shown = await call<TestResultsData>(t.app, 'GET', `/api/models/${m.model.id}/images/${m.images[30]}/test-results`, undefined, { token });
    expect(shown.data.results).toEqual([]);
  }, 40_000);

  it('exports the ONNX model and an SDK whose Node and Python examples give the test’s classes, views included', async () => {
    const pack = (extra: Record<string, unknown>) => call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: m.model.id, inputW: 64, inputH: 64, maxDet: 1, rotated: false, ...extra }, { token });
    expect((await pack({ kind: 'model' })).code).toBe(0);
    expect(await waitForPack(t.app, token, m.model.id, 'model')).toMatchObject({ packStatus: 'success' });
    expect((await pack({ kind: 'sdk', sdkType: 'cpu' })).code).toBe(0);
    const done = await waitForPack(t.app, token, m.model.id, 'sdk');
    expect(done.packStatus, done.error ?? '').toBe('success');
    const zip = await t.app.inject({ method: 'GET', url: `/api/train/download/${done.id}/64/64`, headers: { 'x-token': token } });
    const dir = path.join(work, 'sdk');
    const names = await unzip(zip.rawPayload, dir);
    // A classifier has no NMS to leave out: one graph serves both SDKs.
    expect(names).toContain('model.onnx');
    expect(names).not.toContain('model-raw.onnx');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'sdk.json'), 'utf8'))).toMatchObject({ task: 'classify', maxDet: null, inputW: 64, inputH: 64, tta: 'dihedral' });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'labels.json'), 'utf8'))).toEqual(['disc', 'square']);
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('the classifier, class probabilities inside the graph');
    // What was tested ships: the 8 views are in the one graph both SDKs run.
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('Test-time augmentation: `model.onnx` averages the probabilities of 8 views');
    expect(fs.readFileSync(path.join(dir, 'model.onnx')).includes('"tta": "dihedral"')).toBe(true);

    const probe = path.join(work, 'probe.png');
    await fs.promises.writeFile(probe, await shapeImage(30));
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    const want = items[0]!.classification!;
    const labelName = (id: number) => SHAPES.find((s) => m.labels[s] === id)!;
    fs.mkdirSync(path.join(dir, 'node', 'node_modules'));
    for (const dep of ['onnxruntime-node', 'sharp']) fs.symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(dir, 'node', 'node_modules', dep));
    const node = await run(process.execPath, ['example.mjs', probe], { cwd: path.join(dir, 'node') });
    const py = await run(PY, ['example.py', probe], { cwd: path.join(dir, 'python'), env: { PATH: process.env.PATH } });
    for (const out of [node.stdout, py.stdout]) {
      const res = JSON.parse(out) as { task: string; classes: { label: string; score: number }[] };
      expect(res.task).toBe('classify');
      expect(res.classes.map((c) => c.label).sort()).toEqual(['disc', 'square']);
      expect(res.classes[0]!.label).toBe(labelName(want.labelId));
      expect(Math.abs(res.classes[0]!.score - want.confidence)).toBeLessThan(1e-3);
    }
  }, 60_000);
});
