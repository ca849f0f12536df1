import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelData, PackStatusData, TestRunData, TrainingData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { save } from './labeling-fixtures.js';
import { waitFor } from './training-fixtures.js';
import { downloader, partImage, partsModel, QUICK, setDownloadPermission, unzip, waitForPack } from './delivery-fixtures.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PY = '/usr/bin/python3';

let t: TestApp;
let token: string;
let userId: number;
let m: Awaited<ReturnType<typeof partsModel>>;
let trained: TrainingData;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-packs-'));

const pack = (body: Record<string, unknown>, tok = token) => call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', body, { token: tok });
const status = (modelId: number, kind: string, tok = token) => call<PackStatusData>(t.app, 'GET', `/api/train/modelPackStatus?modelId=${modelId}&kind=${kind}`, undefined, { token: tok });
const download = (p: { id: number | null; inputW: number | null; inputH: number | null }, tok = token) =>
  t.app.inject({ method: 'GET', url: `/api/train/download/${p.id}/${p.inputW}/${p.inputH}`, headers: { 'x-token': tok } });
const body = (extra: Record<string, unknown> = {}) => ({ modelId: m.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false, ...extra });

interface Box {
  box: number[];
  score: number;
  label: string;
}

beforeAll(async () => {
  t = await startApp();
  ({ token, id: userId } = await downloader(t.app));
  m = await partsModel(t.app, token);
  const r = await call<TrainingData>(t.app, 'POST', `/api/models/${m.model.id}/trainings`, { params: QUICK }, { token });
  expect(r.code, r.message).toBe(0);
  trained = await waitFor(t.app, token, m.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 240_000);
  expect(trained.status, trained.error ?? '').toBe('succeeded');
}, 250_000);
afterAll(async () => {
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('export rules (SPEC §5, §6, §8)', () => {
  it('says none before the first export, and 8006 while no training has weights', async () => {
    const s = await status(m.model.id, 'sdk');
    expect(s.data).toMatchObject({ packStatus: 'none', id: null, inputW: null, inputH: null, modelUrl: null, kind: 'sdk' });
    const bare = await partsModel(t.app, token, 4);
    const r = await pack(body({ modelId: bare.model.id }));
    expect([r.status, r.code]).toEqual([409, 8006]);
    expect((await pack(body({ trainingId: 999_999 }))).code).toBe(8006);
  });

  it('8008 without download permission, for packing and downloading', async () => {
    const other = await userToken(t.app);
    const own = await partsModel(t.app, other, 4);
    const r = await pack(body({ modelId: own.model.id }), other);
    expect([r.status, r.code]).toEqual([403, 8008]);
    // Someone else's model is not found, whatever the permission.
    expect((await pack(body(), other)).status).toBe(404);
  });

  it('exportFailed names the field: sizes and max detections above 0, an SDK type, the training’s box type', async () => {
    for (const [extra, field] of [
      [{ inputW: 0 }, 'inputW'],
      [{ inputH: -5 }, 'inputH'],
      [{ maxDet: 0 }, 'maxDet'],
      [{ kind: 'sdk' }, 'sdkType'],
      [{ rotated: true }, 'rotated'],
    ] as const) {
      const r = await pack(body(extra));
      expect([r.status, r.code, (r.data as unknown as { field: string }).field]).toEqual([400, 40008, field]);
    }
    const zh = await call(t.app, 'POST', '/api/train/modelPack', body({ maxDet: 0 }), { token, lang: 'zh' });
    expect(zh.message).toBe('模型导出失败，请检查参数。');
  });
});

describe('model pack (SPEC §7)', () => {
  let done: PackStatusData;

  it('packs the latest training as ONNX; the same request while packing answers the same pack, another waits', async () => {
    const r = await pack(body());
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ packStatus: 'packing', inputW: 64, inputH: 64, maxDet: 100, kind: 'model', trainingId: trained.id, version: 'v1', modelUrl: null, sdkType: null, rotated: false });
    expect((await pack(body())).data.id).toBe(r.data.id);
    const busy = await pack(body({ kind: 'sdk', sdkType: 'cpu' }));
    expect([busy.status, busy.code]).toEqual([409, 40011]);
    done = await waitForPack(t.app, token, m.model.id, 'model');
    expect(done).toMatchObject({ packStatus: 'success', id: r.data.id, inputW: 64, inputH: 64, error: null, fileName: `${m.model.name}-v1-64x64.onnx` });
    expect(done.bytes).toBeGreaterThan(100_000);
  }, 90_000);

  it('downloads the file as an attachment, only with the pack’s own size, permission and owner', async () => {
    const res = await download(done);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain(`filename="${m.model.name}-v1-64x64.onnx"`);
    expect(res.rawPayload.length).toBe(done.bytes);
    expect(res.rawPayload.includes(Buffer.from('NonMaxSuppression'))).toBe(true);
    expect(res.rawPayload.includes(Buffer.from('"camera_width": 64'))).toBe(true);

    expect((await download({ ...done, inputW: 65 })).statusCode).toBe(404);
    expect((await download({ ...done, id: 999_999 })).statusCode).toBe(404);
    expect((await download(done, await userToken(t.app))).statusCode).toBe(404);
    await setDownloadPermission(t.app, userId, false);
    try {
      const denied = await download(done);
      expect([denied.statusCode, denied.json().code]).toEqual([403, 8008]);
    } finally {
      await setDownloadPermission(t.app, userId, true);
    }
  });
});

describe('SDK pack: runnable Node and Python SDKs', () => {
  const dir = path.join(work, 'sdk');
  let names: string[];
  const probe = path.join(work, 'probe.png');

  it('packs a ZIP with both graphs, labels, and the two SDKs', async () => {
    const r = await pack(body({ kind: 'sdk', sdkType: 'gpu30', inputW: 64, inputH: 48 }));
    expect(r.code, r.message).toBe(0);
    const done = await waitForPack(t.app, token, m.model.id, 'sdk');
    expect(done).toMatchObject({ packStatus: 'success', sdkType: 'gpu30', inputW: 64, inputH: 48, fileName: `${m.model.name}-v1-64x48-sdk-gpu30.zip` });
    const res = await download(done);
    expect(res.headers['content-type']).toBe('application/zip');
    names = await unzip(res.rawPayload, dir);
    for (const f of ['model.onnx', 'model-raw.onnx', 'labels.json', 'sdk.json', 'README.md', 'node/package.json', 'node/lib/index.js', 'node/lib/letterbox.js', 'node/example.mjs', 'node/README.md', 'python/loupe_sdk.py', 'python/example.py', 'python/README.md']) {
      expect(names).toContain(f);
    }
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'labels.json'), 'utf8'))).toEqual(['part']);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'sdk.json'), 'utf8'))).toMatchObject({ sdkType: 'gpu30', task: 'detect', cameraW: 64, cameraH: 48, inputW: 64, inputH: 64, maxDet: 100, version: 'v1' });
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('RTX 3060 to RTX 3090');
    expect(readme).toContain('GTX 1050 to RTX 2080 Ti');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'node/package.json'), 'utf8')).dependencies).toHaveProperty('onnxruntime-node');
    // The model pack is still the latest of its kind: kinds are apart.
    expect((await status(m.model.id, 'model')).data.kind).toBe('model');
  }, 90_000);

  it('the Node and Python examples print the engine’s boxes for an image (< 1 px)', async () => {
    await fs.promises.writeFile(probe, await partImage(999, { x: 21, y: 15, w: 24, h: 22 }));
    // The engine's own predictions on the same image, from the same weights.
    const best = (JSON.parse((await t.app.deps.db.selectFrom('trainings').select('artifacts').where('id', '=', trained.id).executeTakeFirstOrThrow()).artifacts) as { best: string }).best;
    const coco = { images: [{ id: 1, file_name: 'probe.png', width: 64, height: 64 }], annotations: [], categories: [{ id: 1, name: 'part' }] };
    await fs.promises.writeFile(path.join(work, 'probe.json'), JSON.stringify(coco));
    const env = { ...process.env, PYTHONPATH: path.join(ROOT, 'engine'), OMP_WAIT_POLICY: 'PASSIVE' };
    await run(PY, ['-m', 'loupe_engine', 'test', '--model', await t.app.deps.blobs.localFile(best), '--data', path.join(work, 'probe.json'), '--images', work, '--out', path.join(work, 'pred.json'), '--conf', '0.25'], { env });
    const engine = (JSON.parse(fs.readFileSync(path.join(work, 'pred.json'), 'utf8')) as { bbox: number[]; score: number }[])
      .sort((a, b) => b.score - a.score)
      .map((p) => [p.bbox[0]!, p.bbox[1]!, p.bbox[0]! + p.bbox[2]!, p.bbox[1]! + p.bbox[3]!]);
    expect(engine.length).toBeGreaterThan(0);
    // The top box is the part where it was drawn (21,15)-(45,37), not noise: the comparison below means something.
    const [x1, y1, x2, y2] = engine[0]!;
    const inter = Math.max(0, Math.min(x2!, 45) - Math.max(x1!, 21)) * Math.max(0, Math.min(y2!, 37) - Math.max(y1!, 15));
    expect(inter / ((x2! - x1!) * (y2! - y1!) + 24 * 22 - inter)).toBeGreaterThan(0.5);

    // `npm install` of the SDK's two dependencies, as the same packages this repository installed.
    const modules = path.join(dir, 'node', 'node_modules');
    fs.mkdirSync(modules);
    for (const dep of ['onnxruntime-node', 'sharp']) fs.symlinkSync(path.join(ROOT, 'node_modules', dep), path.join(modules, dep));
    const node = await run(process.execPath, ['example.mjs', probe], { cwd: path.join(dir, 'node') });
    expect(node.stderr).toContain('CUDA is not available');
    const py = await run(PY, ['example.py', probe], { cwd: path.join(dir, 'python'), env: { PATH: process.env.PATH } });
    expect(py.stderr).toMatch(/backend: (opencv|onnxruntime)/);

    for (const [sdk, out] of [['node', node.stdout], ['python', py.stdout]] as const) {
      const res = JSON.parse(out) as { width: number; height: number; detections: Box[] };
      expect([res.width, res.height]).toEqual([64, 64]);
      const boxes = [...res.detections].sort((a, b) => b.score - a.score);
      expect(boxes.map((b) => b.label)).toEqual(engine.map(() => 'part'));
      const diff = Math.max(...boxes.flatMap((b, k) => b.box.map((v, i) => Math.abs(v - engine[k]![i]!))));
      console.log(`${sdk} SDK: ${boxes.length} boxes, max coordinate difference to the engine ${diff.toFixed(4)} px`);
      expect(diff).toBeLessThan(1);
    }
  }, 90_000);

  it('ships the tested test-time augmentation: its views in model.onnx, named for the Python SDK in model-raw.onnx', async () => {
    const started = await call<TestRunData>(t.app, 'POST', `/api/models/${m.model.id}/tests`, { source: 'images', imageIds: m.images.slice(0, 2), settings: { tta: 'hflip' } }, { token });
    expect(started.code, started.message).toBe(0);
    for (let tested = started.data; ['queued', 'preparing', 'testing'].includes(tested.status); ) {
      await new Promise((res) => setTimeout(res, 100));
      tested = (await call<TestRunData>(t.app, 'GET', `/api/models/${m.model.id}/tests/${started.data.id}`, undefined, { token })).data;
      expect(tested.status, tested.error ?? '').not.toBe('failed');
    }
    expect((await pack(body({ kind: 'sdk', sdkType: 'gpu30', inputW: 96, inputH: 64 }))).code).toBe(0);
    const done = await waitForPack(t.app, token, m.model.id, 'sdk');
    expect(done.packStatus, done.error ?? '').toBe('success');
    const out = fs.mkdtempSync(path.join(work, 'tta-'));
    await unzip((await download(done)).rawPayload, out);
    expect(JSON.parse(fs.readFileSync(path.join(out, 'sdk.json'), 'utf8'))).toMatchObject({ tta: 'hflip', rawTta: 'hflip', inputW: 64, inputH: 64 });
    expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8')).toContain('Test-time augmentation: `model.onnx` averages 2 views: the image and its mirror (one inference each); the Python SDK runs the same views');
    for (const f of ['model.onnx', 'model-raw.onnx']) expect(fs.readFileSync(path.join(out, f)).includes('"tta": "hflip"'), f).toBe(true);
  }, 90_000);
});

describe('annotation changes after the training (SPEC §8 9002)', () => {
  it('refuses to export a training older than the data', async () => {
    const r = await save(t.app, token, { model: m.model, images: m.images, labels: { part: m.label } }, m.images[0]!, 1, []);
    expect(r.code, r.message).toBe(0);
    const model = await call<ModelData>(t.app, 'GET', `/api/models/${m.model.id}`, undefined, { token });
    expect(model.data.dataVersion).toBeGreaterThan(trained.dataVersion);
    const refused = await pack(body());
    expect([refused.status, refused.code]).toEqual([409, 9002]);
  });
});

describe('deleting the model', () => {
  it('removes what its trainings left: weights, results, packs, snapshot manifests and kept checkpoints', async () => {
    const { db, blobs } = t.app.deps;
    const trainings = await db.selectFrom('trainings').select(['id', 'artifacts']).where('model_id', '=', m.model.id).execute();
    const packs = await db.selectFrom('model_packs').select('artifact_sha').where('model_id', '=', m.model.id).where('artifact_sha', 'is not', null).execute();
    const manifests = await db.selectFrom('dataset_snapshots').select('manifest_sha').where('model_id', '=', m.model.id).execute();
    const outputs = [
      ...trainings.flatMap((x) => Object.values(JSON.parse(x.artifacts) as Record<string, string>)),
      ...packs.map((p) => p.artifact_sha!),
      ...manifests.map((x) => x.manifest_sha),
    ];
    expect(outputs.length).toBeGreaterThanOrEqual(4);
    for (const sha of outputs) expect(await blobs.exists(sha), sha).toBe(true);
    // As a failed training keeps its checkpoint in the blob store for a resume.
    const last = Buffer.from(`checkpoint of ${m.model.id}`);
    const lastSha = createHash('sha256').update(last).digest('hex');
    await blobs.putBuffer(lastSha, last);
    await db.updateTable('trainings').set({ checkpoint: JSON.stringify({ last: lastSha }) }).where('id', '=', trainings[0]!.id).execute();
    outputs.push(lastSha);

    const r = await call(t.app, 'DELETE', `/api/models/${m.model.id}`, undefined, { token });
    expect(r.code, r.message).toBe(0);
    for (const sha of outputs) expect(await blobs.exists(sha), sha).toBe(false);
    expect(await db.selectFrom('trainings').select('id').where('model_id', '=', m.model.id).execute()).toEqual([]);
  });
});
