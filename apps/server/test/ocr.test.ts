import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Geometry, LabelData, PackStatusData, TestRunData, TrainingData, UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { newModel, send, uploadUrl } from './gallery-fixtures.js';
import { save } from './labeling-fixtures.js';
import { detail, SAME_ON_EVERY_HOST, start, waitFor } from './training-fixtures.js';
import { downloader, unzip, waitForPack } from './delivery-fixtures.js';
import { runImages, splitImages, testRun } from './task-fixtures.js';
import { H, lineImage, lineOf, W } from './text-lines.js';
import { matchImage } from '../src/services/testing/matching.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PY = '/usr/bin/python3';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-ocr-'));
const PARAMS = { model: 'p', imgsz: 64, epochs: 2, batch: 8, mosaic: 0, workers: 0, warmup_epochs: 0, seed: 3, ...SAME_ON_EVERY_HOST };
const COUNT = 30;
interface SdkLine {
  text: string;
  textScore: number;
  score: number;
  rbox: { cx: number; cy: number; w: number; h: number; angle: number };
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

describe('OCR results against the labeled lines', () => {
  it('a line is right only when found where it is labeled and read exactly', () => {
    const sameText = (p: { geometry: Geometry }, q: { geometry: Geometry }) => p.geometry.text === q.geometry.text;
    const truth = [{ labelId: 1, geometry: lineOf(0).box }];
    const found = (text: string, dx = 0) => ({ labelId: 1, confidence: 0.9, geometry: { ...lineOf(0).box, cx: lineOf(0).box.cx + dx, text } });
    expect(matchImage([found(lineOf(0).text)], truth, true, sameText)).toMatchObject({ tp: 1, fp: 0, fn: 0 });
    expect(matchImage([found('0000')], truth, true, sameText)).toMatchObject({ tp: 0, fp: 1, fn: 1 });
    expect(matchImage([found(lineOf(0).text, 40)], truth, true, sameText)).toMatchObject({ tp: 0, fp: 1, fn: 1 });
  });
});

describe('an OCR model on the real engine', () => {
  let modelId = 0;
  let images: number[] = [];
  let label = 0;
  let training: TrainingData;
  let tested: TestRunData;

  it('trains a text detector and recognizer on the labeled lines: task ocr, accuracy = character accuracy', async () => {
    const model = await newModel(t.app, token, 'OCR');
    modelId = model.id;
    const files = await Promise.all(Array.from({ length: COUNT }, async (_, i) => ({ filename: `line_${i}.png`, data: await lineImage(i) })));
    const up = await send<UploadData>(t.app, token, uploadUrl(modelId), files);
    expect(up.data.accepted, up.message).toBe(COUNT);
    images = up.data.results.map((r) => r.imageId!);
    label = (await call<LabelData>(t.app, 'POST', `/api/models/${modelId}/labels`, { name: 'serial' }, { token })).data.id;
    await splitImages(t.app, token, modelId, images, { train: [0, 20], valid: [20, 25], test: [25, COUNT] });
    for (const [i, id] of images.entries()) {
      // One box left without its text: it teaches the detector only, the training goes on.
      const geometry = i === 1 ? { ...lineOf(i).box, text: '' } : lineOf(i).box;
      const r = await save(t.app, token, { model, images, labels: { serial: label } }, id, 0, [{ labelId: label, geometry }]);
      expect(r.code, r.message).toBe(0);
    }
    const r = await start(t.app, token, modelId, PARAMS);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'ocr', rotated: true, labeledImages: COUNT, labelKinds: 1 });
    training = await waitFor(t.app, token, modelId, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 150_000);
    expect(training.status, training.error ?? '').toBe('succeeded');
    const d = await detail(t.app, token, modelId, training.id);
    expect(d.summary).toMatchObject({ task: 'ocr' });
    expect(d.accuracy).toBe(d.summary!.char_acc);
    expect(d.history).toHaveLength(PARAMS.epochs);
    for (const key of ['char_acc', 'line_acc', 'ned', 'mAP50']) expect(d.history.at(-1)!.metrics, key).toHaveProperty(key);
  }, 180_000);

  it('tests the test split: rotated boxes with the text read, lines right only when read exactly', async () => {
    // A mirrored line is not text: test-time augmentation is refused in the caller's language, before anything is queued.
    const refused = await call(t.app, 'POST', `/api/models/${modelId}/tests`, { settings: { tta: 'flips' } }, { token, lang: 'ru' });
    expect([refused.status, refused.code]).toEqual([400, 40013]);
    expect(refused.message).toContain('Аугментация при тестировании');
    expect((await call<{ total: number }>(t.app, 'GET', `/api/models/${modelId}/tests`, undefined, { token })).data.total).toBe(0);
    tested = await testRun(t.app, token, modelId, { settings: { conf: 0.01 } });
    expect(tested.settings.conf).toBe(0.01);
    expect(tested.status, tested.error ?? '').toBe('succeeded');
    expect(tested.summary).toMatchObject({ images: 5 });
    for (const key of ['char_acc', 'line_acc', 'ned']) expect(tested.summary, key).toHaveProperty(key);
    const { items } = await runImages(t.app, token, modelId, tested.id);
    expect(items).toHaveLength(5);
    let tp = 0;
    const shape = (g: unknown) => g as Geometry;
    for (const img of items) {
      for (const p of img.predictions) {
        expect(shape(p.geometry).kind).toBe('rbox');
        expect(typeof shape(p.geometry).text).toBe('string');
      }
      expect(img.groundTruth.map((g) => shape(g.geometry).text)).toEqual([lineOf(images.indexOf(img.imageId)).text]);
      // A match is a line found and read exactly.
      for (const p of img.predictions.filter((q) => q.matched)) expect(shape(p.geometry).text).toBe(shape(img.groundTruth[0]!.geometry).text);
      tp += img.tp;
    }
    expect(tested.tp).toBe(tp);
  }, 60_000);

  it('exports the two graphs: the model file is a ZIP with the detector and the recognizer, the SDK holds both', async () => {
    const body = { modelId, kind: 'model', inputW: W, inputH: H, maxDet: 20, rotated: true };
    expect((await call(t.app, 'POST', '/api/train/modelPack', { ...body, rotated: false }, { token })).code).toBe(40008);
    const r = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', body, { token });
    expect(r.code, r.message).toBe(0);
    const done = await waitForPack(t.app, token, modelId, 'model', 120_000);
    expect(done.packStatus, done.error ?? '').toBe('success');
    expect(done.fileName).toMatch(/-ocr\.zip$/);
    const file = await t.app.inject({ method: 'GET', url: `/api/train/download/${done.id}/${W}/${H}`, headers: { 'x-token': token } });
    expect(file.headers['content-type']).toBe('application/zip');
    const entries = await unzip(file.rawPayload, path.join(work, 'model'));
    expect(entries.sort()).toEqual(['labels.json', 'model-rec.onnx', 'model.onnx']);

    const sdk = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { ...body, kind: 'sdk', sdkType: 'cpu' }, { token });
    expect(sdk.code, sdk.message).toBe(0);
    const packed = await waitForPack(t.app, token, modelId, 'sdk', 120_000);
    expect(packed.packStatus, packed.error ?? '').toBe('success');
    const zip = await t.app.inject({ method: 'GET', url: `/api/train/download/${packed.id}/${W}/${H}`, headers: { 'x-token': token } });
    const sdkEntries = await unzip(zip.rawPayload, path.join(work, 'sdk'));
    for (const f of ['model.onnx', 'model-rec.onnx', 'model-raw.onnx', 'sdk.json', 'labels.json']) expect(sdkEntries).toContain(f);
    expect(JSON.parse(fs.readFileSync(path.join(work, 'sdk', 'sdk.json'), 'utf8'))).toMatchObject({ task: 'ocr' });
  }, 300_000);

  it('the Node and Python examples read the lines the engine reads, from the same weights', async () => {
    const dir = path.join(work, 'sdk');
    // Test images: the engine's own reading of them at the SDK's threshold.
    const probes = [25, 26, 27];
    const coco = { images: probes.map((i) => ({ id: i, file_name: `line_${i}.png`, width: W, height: H })), annotations: [], categories: [{ id: 1, name: 'serial' }] };
    for (const i of probes) fs.writeFileSync(path.join(work, `line_${i}.png`), await lineImage(i));
    fs.writeFileSync(path.join(work, 'probe.json'), JSON.stringify(coco));
    const best = (JSON.parse((await t.app.deps.db.selectFrom('trainings').select('artifacts').where('id', '=', training.id).executeTakeFirstOrThrow()).artifacts) as { best: string }).best;
    const env = { ...process.env, PYTHONPATH: path.join(ROOT, 'engine'), OMP_WAIT_POLICY: 'PASSIVE' };
    const sdkJson = JSON.parse(fs.readFileSync(path.join(dir, 'sdk.json'), 'utf8')) as { conf: number };
    await run(PY, ['-m', 'loupe_engine', 'test', '--model', await t.app.deps.blobs.localFile(best), '--data', path.join(work, 'probe.json'), '--images', work, '--out', path.join(work, 'pred.json'), '--conf', String(sdkJson.conf)], { env });
    const engine = JSON.parse(fs.readFileSync(path.join(work, 'pred.json'), 'utf8')) as { image_id: number; rbox: number[]; score: number; text: string; text_score: number }[];

    const modules = path.join(dir, 'node', 'node_modules');
    fs.mkdirSync(modules, { recursive: true });
    for (const dep of ['onnxruntime-node', 'sharp']) fs.symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(modules, dep));
    let paired = 0;
    for (const i of probes) {
      const image = path.join(work, `line_${i}.png`);
      const want = engine.filter((p) => p.image_id === i);
      const node = await run(process.execPath, ['example.mjs', image], { cwd: path.join(dir, 'node') });
      const py = await run(PY, ['example.py', image], { cwd: path.join(dir, 'python'), env: { PATH: process.env.PATH } });
      for (const out of [node.stdout, py.stdout]) {
        const free = [...want];
        for (const l of (JSON.parse(out) as { lines: SdkLine[] }).lines) {
          const near = free.find((p) => Math.max(Math.abs(l.rbox.cx - p.rbox[0]!), Math.abs(l.rbox.cy - p.rbox[1]!)) < 1);
          if (!near) {
            // Only a line at the threshold may be kept on one side (scores differ in the last digits).
            expect(Math.abs(l.score - sdkJson.conf), `unpaired ${JSON.stringify(l)} on image ${i}`).toBeLessThan(0.01);
            continue;
          }
          free.splice(free.indexOf(near), 1);
          expect(l.text, `image ${i}`).toBe(near.text);
          // The text score depends on every pixel of the crop: the SDKs cut the line out as the engine does.
          expect(Math.abs(l.textScore - near.text_score), `image ${i}`).toBeLessThan(1e-4);
          paired += 1;
        }
        for (const p of free) expect(Math.abs(p.score - sdkJson.conf), `missed ${JSON.stringify(p)} on image ${i}`).toBeLessThan(0.01);
      }
    }
    console.log(`OCR SDKs: ${paired} lines read by the Node and Python SDKs as the engine reads them (conf ${sdkJson.conf})`);
    expect(paired).toBeGreaterThan(0);
  }, 120_000);
});
