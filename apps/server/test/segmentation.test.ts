import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Geometry, PackStatusData, TestResultsData, TestRunData, TrainingData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { save } from './labeling-fixtures.js';
import { detail, SAME_ON_EVERY_HOST, start, waitFor } from './training-fixtures.js';
import { downloader, unzip, waitForPack } from './delivery-fixtures.js';
import { drawnOf, runImages, shapeImage, shapesModel, splitImages, testRun } from './task-fixtures.js';
import { matchMasks } from '../src/services/testing/outcomes.js';
import { maskIou, rasterize } from '../src/services/testing/masks.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-segment-'));

const PARAMS = { model: 'p', imgsz: 64, epochs: 4, batch: 8, mosaic: 0, workers: 0, warmup_epochs: 0, seed: 5, optimizer: 'AdamW', lr0: 0.01, ...SAME_ON_EVERY_HOST };
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

const polygon = (points: [number, number][]): Geometry => ({ kind: 'polygon', points });
const square = (x: number, y: number, s: number) => polygon([[x, y], [x + s, y], [x + s, y + s], [x, y + s]]);

describe('instances against ground truth by mask IoU ≥ 0.5', () => {
  it('rasterizes by pixel centres, and an outline through boundary pixel centres covers its region', () => {
    const a = rasterize(square(10, 10, 10), 64, 64);
    expect(a.area).toBe(100);
    // The engine's outline of that 10×10 region runs through the centres of its boundary pixels.
    const outline = rasterize(square(10.5, 10.5, 9), 64, 64);
    expect(outline.area).toBe(100);
    expect(maskIou(a, outline)).toBe(1);
    // Half the square shifted away: 50 of 150 pixels shared.
    expect(maskIou(a, rasterize(square(15, 10, 10), 64, 64))).toBeCloseTo(50 / 150, 9);
    // Clipped to the image.
    expect(rasterize(square(-5, -5, 10), 64, 64).area).toBe(25);
    // A box and a rotated box are their shapes.
    expect(rasterize({ kind: 'box', x1: 0, y1: 0, x2: 4, y2: 3 }, 64, 64).area).toBe(12);
    expect(rasterize({ kind: 'rbox', cx: 20, cy: 20, w: 10, h: 4, angle: 90 }, 64, 64).area).toBe(40);
  });

  it('matches the most confident instance first, same label only, and counts tp/fp/fn', () => {
    const truth = [
      { labelId: 1, geometry: square(10, 10, 10) },
      { labelId: 2, geometry: square(40, 40, 10) },
    ];
    const m = matchMasks(
      [
        { labelId: 1, geometry: square(12, 10, 10), confidence: 0.6 }, // IoU 80/120
        { labelId: 1, geometry: square(10, 10, 10), confidence: 0.9 }, // IoU 1: takes the object
        { labelId: 1, geometry: square(40, 40, 10), confidence: 0.8 }, // wrong label
      ],
      truth,
      { width: 64, height: 64 },
    );
    expect(m.predictions.map((p) => p.matched)).toEqual([false, true, false]);
    expect(m.groundTruth.map((g) => g.matched)).toEqual([true, false]);
    expect([m.tp, m.fp, m.fn]).toEqual([1, 2, 1]);
  });
});

describe('a segmentation model on the real engine', () => {
  let m: Awaited<ReturnType<typeof shapesModel>>;
  let training: TrainingData;
  let tested: TestRunData;

  it('8001 without polygons and 40002 for a label without a validation image', async () => {
    m = await shapesModel(t.app, token, 'SEGMENTATION', COUNT);
    await splitImages(t.app, token, m.model.id, m.images, { train: [0, 24], valid: [24, 30], test: [30, COUNT] });
    expect((await start(t.app, token, m.model.id, PARAMS)).code).toBe(8001);
    // Polygons on the training images only.
    for (const [i, id] of m.images.slice(0, 24).entries()) {
      const d = drawnOf(i);
      expect((await save(t.app, token, { ...m, labels: m.labels }, id, 0, [{ labelId: m.labels[d.shape], geometry: polygon(d.polygon) }])).code).toBe(0);
    }
    const r = await start(t.app, token, m.model.id, PARAMS);
    expect([r.status, r.code]).toEqual([409, 40002]);
    expect(r.message).toContain('disc');
  });

  it('trains on the polygons: task segment, accuracy = mIoU, per-epoch mIoU and per-class IoU', async () => {
    for (const [k, id] of m.images.slice(24).entries()) {
      const d = drawnOf(24 + k);
      expect((await save(t.app, token, { ...m, labels: m.labels }, id, 0, [{ labelId: m.labels[d.shape], geometry: polygon(d.polygon) }])).code).toBe(0);
    }
    const r = await start(t.app, token, m.model.id, PARAMS);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'segment', rotated: false, labeledImages: COUNT, labelKinds: 2 });
    training = await waitFor(t.app, token, m.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    expect(training.status, training.error ?? '').toBe('succeeded');
    const d = await detail(t.app, token, m.model.id, training.id);
    expect(d.summary).toMatchObject({ task: 'segment', overlap_mask: true });
    expect(d.accuracy).toBe(d.summary!.mIoU);
    expect(d.history.at(-1)!.metrics).toHaveProperty('mIoU');
    expect(Object.keys(d.evaluation!.per_class).sort()).toEqual(['disc', 'square']);
    expect(d.evaluation!.per_class.disc).toHaveProperty('IoU');
  }, 60_000);

  it('tests the test split with 8 views: instances as polygons, matched to the drawn shapes, with the engine’s mIoU', async () => {
    // Test-time augmentation averages a segmenter's probabilities over the image's flips and turns, pixel by pixel.
    tested = await testRun(t.app, token, m.model.id, { settings: { tta: 'dihedral' } });
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    expect(tested.summary).toMatchObject({ images: 6, tta: 'dihedral' });
    expect(tested.settings.tta).toBe('dihedral');
    expect(tested.summary).toHaveProperty('mIoU');
    expect(tested.summary).toHaveProperty('pixel_accuracy');
    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    expect(items).toHaveLength(6);
    let instances = 0;
    for (const img of items) {
      expect(img.classification).toBeNull();
      expect(img.groundTruth).toHaveLength(1);
      expect(img.tp + img.fn).toBe(1);
      expect(img.tp + img.fp).toBe(img.predictions.length);
      for (const p of img.predictions) {
        const g = p.geometry as Geometry;
        expect(['polygon', 'box']).toContain(g.kind);
        if (g.kind === 'polygon') for (const [x, y] of g.points) expect(x >= 0 && y >= 0 && x <= 64 && y <= 64).toBe(true);
      }
      instances += img.predictions.length;
    }
    expect(instances).toBe(tested.summary!.instances);
    expect([tested.tp, tested.fp, tested.fn]).toEqual(['tp', 'fp', 'fn'].map((k) => items.reduce((n, i) => n + (i[k as 'tp'] as number), 0)));
    console.log(`segment test: ${instances} instances, tp ${tested.tp} fp ${tested.fp} fn ${tested.fn}, mIoU ${(tested.summary!.mIoU as number).toFixed(3)}`);
    // A model that learned anything finds most drawn shapes at IoU ≥ 0.5.
    expect(tested.tp).toBeGreaterThanOrEqual(3);
    // The studio draws the same instances (dashed), convertible on test data.
    const shown = await call<TestResultsData>(t.app, 'GET', `/api/models/${m.model.id}/images/${items[0]!.imageId}/test-results`, undefined, { token });
    expect(shown.data.results.map((r) => r.geometry)).toEqual(items[0]!.predictions.map((p) => p.geometry));
    expect(shown.data.convertible).toBe(true);
  }, 40_000);

  it('exports an SDK whose Node and Python examples find the test’s instances, views included', async () => {
    const r = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: m.model.id, kind: 'sdk', sdkType: 'cpu', inputW: 64, inputH: 64, maxDet: 1, rotated: false }, { token });
    expect(r.code, r.message).toBe(0);
    const done = await waitForPack(t.app, token, m.model.id, 'sdk');
    expect(done.packStatus, done.error ?? '').toBe('success');
    const zip = await t.app.inject({ method: 'GET', url: `/api/train/download/${done.id}/64/64`, headers: { 'x-token': token } });
    const dir = path.join(work, 'sdk');
    const names = await unzip(zip.rawPayload, dir);
    expect(names).not.toContain('model-raw.onnx');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'sdk.json'), 'utf8'))).toMatchObject({ task: 'segment', maxDet: null, tta: 'dihedral' });
    // What was tested ships: the 8 views are in the one graph both SDKs run.
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain('Test-time augmentation: `model.onnx` averages the per-pixel probabilities, mapped back onto the image, of 8 views');
    expect(fs.readFileSync(path.join(dir, 'model.onnx')).includes('"tta": "dihedral"')).toBe(true);

    const { items } = await runImages(t.app, token, m.model.id, tested.id);
    const img = items.find((i) => i.predictions.length > 0)!;
    const index = m.images.indexOf(img.imageId);
    const probe = path.join(work, 'probe.png');
    await fs.promises.writeFile(probe, await shapeImage(index));
    fs.mkdirSync(path.join(dir, 'node', 'node_modules'));
    for (const dep of ['onnxruntime-node', 'sharp']) fs.symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(dir, 'node', 'node_modules', dep));
    const node = await run(process.execPath, ['example.mjs', probe], { cwd: path.join(dir, 'node') });
    const py = await run('/usr/bin/python3', ['example.py', probe], { cwd: path.join(dir, 'python'), env: { PATH: process.env.PATH } });
    const stored = img.predictions.filter((p) => (p.geometry as Geometry).kind === 'polygon').map((p) => (p.geometry as { points: number[][] }).points);
    for (const out of [node.stdout, py.stdout]) {
      const res = JSON.parse(out) as { task: string; instances: { polygon: [number, number][]; score: number }[]; pixelsPerClass: Record<string, number> };
      expect(res.task).toBe('segment');
      // Same outlines as the platform recorded from the engine's test (largest polygon per instance).
      expect(res.instances.filter((o) => o.polygon.length >= 3).map((o) => o.polygon)).toEqual(stored);
      expect(Object.values(res.pixelsPerClass).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
  }, 60_000);
});
