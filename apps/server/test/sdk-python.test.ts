import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PY = '/usr/bin/python3';
const env = { ...process.env, PYTHONPATH: path.join(ROOT, 'engine'), OMP_WAIT_POLICY: 'PASSIVE' };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-sdk-py-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const engine = (...args: string[]) => run(PY, ['-m', 'loupe_engine', ...args], { env, cwd: work, maxBuffer: 64 << 20 });

/** The SDK's `detect` on every image of a COCO file in `cwd`, through `model-raw.onnx`, with the SDK's own PATH only. */
async function sdkDetections<T>(cwd: string, coco: string): Promise<Record<string, T[]>> {
  const script = `
import json, sys, cv2
sys.path.insert(0, sys.argv[1])
from loupe_sdk import Model
m = Model("model-raw.onnx")
val = json.load(open(sys.argv[2]))
print(json.dumps({im["id"]: m.detect(cv2.imread("images/" + im["file_name"])) for im in val["images"]}))
`;
  const sdk = await run(PY, ['-c', script, path.join(ROOT, 'apps/server/sdk/python'), coco], { cwd, env: { PATH: process.env.PATH }, maxBuffer: 64 << 20 });
  return JSON.parse(sdk.stdout) as Record<string, T[]>;
}

/**
 * The SDK ZIP's Python part on rotated boxes, which packs.test.ts (axis-aligned) does not reach: on a barely
 * trained model at a threshold of 0.001 every image has many overlapping candidates, so NMS decides a lot, and
 * the SDK (OpenCV DNN + its ProbIoU suppression) must keep exactly the engine's boxes.
 */
describe('Python SDK on a rotated-box model', () => {
  it('keeps the engine’s rotated boxes, classes and order at a low threshold', async () => {
    await run(PY, [path.join(ROOT, 'engine/tests/fixtures.py'), work, '--n', '12', '--size', '64', '--obb'], { env });
    await engine('train', '--task', 'obb', '--data', 'all.json', '--images', 'images', '--out', 'run', '--set', 'model=p', '--set', 'imgsz=64', '--set', 'epochs=3', '--set', 'seed=3', '--set', 'val=false');
    await engine('export', '--model', 'run/best.pt', '--format', 'onnx', '--width', '64', '--height', '64', '--max-det', '300', '--conf', '0.001', '--no-nms', '--out', 'model-raw.onnx');
    await engine('test', '--model', 'run/best.pt', '--data', 'all.json', '--images', 'images', '--out', 'pred.json', '--conf', '0.001');
    const mine = await sdkDetections<{ classId: number; score: number; rbox: { cx: number; cy: number; w: number; h: number; angle: number } }>(work, 'all.json');
    const theirs = JSON.parse(fs.readFileSync(path.join(work, 'pred.json'), 'utf8')) as { image_id: number; category_id: number; score: number; rbox: number[] }[];
    let count = 0;
    let diff = 0;
    for (const [id, dets] of Object.entries(mine)) {
      const want = theirs.filter((p) => p.image_id === Number(id)).sort((a, b) => b.score - a.score);
      expect(dets.length).toBe(want.length);
      dets.forEach((d, k) => {
        expect(d.classId + 1).toBe(want[k]!.category_id);
        const a = [d.rbox.cx, d.rbox.cy, d.rbox.w, d.rbox.h, d.rbox.angle];
        a.forEach((v, i) => (diff = Math.max(diff, Math.abs(v - want[k]!.rbox[i]!))));
        count++;
      });
    }
    console.log(`python SDK, rotated: ${count} boxes, max difference to the engine ${diff.toFixed(4)} (px and degrees)`);
    expect(count).toBeGreaterThan(20);
    expect(diff).toBeLessThan(0.05);
  }, 120_000);
});

describe('Python SDK text-line suppression', () => {
  it('finds the pieces of a line exactly where the engine does (the engine graph runs nms.py, the SDK numpy)', async () => {
    // Random text boxes around a few lines: pieces, copies turned by a few degrees, written tall, and strangers.
    const script = `
import math, sys
import numpy as np, torch
sys.path.insert(0, sys.argv[1])
from loupe_sdk import same_line as sdk
from loupe_engine.nms import same_line as engine
rng = np.random.default_rng(7)
lines = rng.uniform([20, 20, 60, 10, -0.7], [300, 300, 200, 24, 2.3], (6, 5))
k = rng.integers(0, 6, 400)
b = lines[k] + rng.normal(0, 1, (400, 5)) * [12, 4, 40, 2, 0.15]
b[:, 2:4] = np.abs(b[:, 2:4]) + 2
tall = rng.random(400) < 0.3
b[tall, 2], b[tall, 3], b[tall, 4] = b[tall, 3].copy(), b[tall, 2].copy(), b[tall, 4] + math.pi / 2
a, e = sdk(b), engine(torch.tensor(b)).numpy()
print(int(e.sum()), int((a != e).sum()))
`;
    const { stdout } = await run(PY, ['-c', script, path.join(ROOT, 'apps/server/sdk/python')], { env });
    const [pairs, differ] = stdout.trim().split(' ').map(Number);
    expect(pairs).toBeGreaterThan(2000); // many pairs are one line, many are not (160,000 pairs in all)
    expect(pairs).toBeLessThan(100_000);
    expect(differ).toBe(0);
  });
});

interface Pred { image_id: number; category_id: number; score: number; bbox: number[]; rbox?: number[] }
interface SdkDet { classId: number; score: number; box: number[]; rbox?: { cx: number; cy: number; w: number; h: number; angle: number } }

/**
 * A model trained on `task`, exported without NMS with 8 views in its metadata, run by the SDK (OpenCV DNN) and
 * tested by the engine with the same views: each engine box paired one to one with the SDK box of its class that
 * `gap` puts closest (equal scores may come in either order). Returns the pairs' count, the largest gap, and the
 * engine's scores with 8 views and with one.
 */
async function ttaAgreement(task: 'detect' | 'obb', gap: (d: SdkDet, p: Pred) => number) {
  const dir = path.join(work, `tta-${task}`);
  // Trained enough to score boxes apart (packages/runtime's parity test does the same): on a barely trained model
  // the 8 averaged views give the image-sized background boxes of symmetric anchors equal scores, and OpenCV's
  // and torch's float noise then decides which of two equals NMS keeps.
  await run(PY, [path.join(ROOT, 'engine/tests/fixtures.py'), dir, '--n', '24', '--size', '64', ...(task === 'obb' ? ['--obb'] : [])], { env });
  const inDir = (...args: string[]) => run(PY, ['-m', 'loupe_engine', ...args], { env, cwd: dir, maxBuffer: 64 << 20 });
  await inDir('train', '--task', task, '--data', 'train.json', '--val', 'val.json', '--images', 'images', '--out', 'run', '--set', 'imgsz=64', '--set', 'epochs=30', '--set', 'mosaic=0', '--set', 'seed=1', '--set', 'val=false');
  await inDir('export', '--model', 'run/best.pt', '--format', 'onnx', '--width', '64', '--height', '64', '--max-det', '300', '--conf', '0.02', '--no-nms', '--tta', 'dihedral', '--out', 'model-raw.onnx');
  const detections = async (tta: string) => {
    await inDir('test', '--model', 'run/best.pt', '--data', 'val.json', '--images', 'images', '--out', `pred-${tta}.json`, '--conf', '0.02', '--tta', tta);
    return JSON.parse(fs.readFileSync(path.join(dir, `pred-${tta}.json`), 'utf8')) as Pred[];
  };
  const [theirs, plain] = [await detections('dihedral'), await detections('off')];
  const mine = await sdkDetections<SdkDet>(dir, 'val.json');
  let count = 0;
  let diff = 0;
  for (const [id, dets] of Object.entries(mine)) {
    const want = theirs.filter((p) => p.image_id === Number(id));
    expect(dets.length).toBe(want.length);
    const left = [...dets];
    for (const p of want) {
      const same = left.filter((d) => d.classId + 1 === p.category_id).sort((a, b) => gap(a, p) - gap(b, p))[0];
      expect(same, `image ${id}: no SDK box of class ${p.category_id}`).toBeDefined();
      diff = Math.max(diff, gap(same!, p));
      left.splice(left.indexOf(same!), 1);
      count++;
    }
  }
  return { count, diff, scores: theirs.map((p) => p.score), plainScores: plain.map((p) => p.score) };
}

// Each test trains 30 epochs, exports, tests twice and runs the SDK: about 30 s alone, but in the suite it shares the
// two cores with the other files' trainings (one run of npm test: 49 s in the SQLite stage, over 120 s in the
// PostgreSQL one), so the limits only catch a hang.
describe('Python SDK with test-time augmentation', () => {
  it('runs the metadata’s 8 views through the OpenCV graph and keeps the engine’s boxes', async () => {
    const { count, diff, scores, plainScores } = await ttaAgreement('detect', (d, p) => {
      const [x, y, w, h] = p.bbox as [number, number, number, number];
      return Math.max(Math.abs(d.score - p.score), ...[x, y, x + w, y + h].map((v, i) => Math.abs(v - d.box[i]!)));
    });
    console.log(`python SDK, 8 views: ${count} boxes (${plainScores.length} with one view), max difference to the engine ${diff.toFixed(4)} (px and score)`);
    expect(count).toBeGreaterThan(5);
    expect(diff).toBeLessThan(0.05);
    // The views changed what was found, so the agreement above is the views', not one view's.
    expect(JSON.stringify(plainScores)).not.toBe(JSON.stringify(scores));
  }, 300_000);

  it('averages rotated boxes’ centres and shape matrices over the 8 views as the engine does', async () => {
    // Angles compared modulo 180 degrees: a box at the end of the range may come back at its other end.
    const angleGap = (a: number, b: number) => Math.abs(((((a - b + 90) % 180) + 180) % 180) - 90);
    const { count, diff, scores, plainScores } = await ttaAgreement('obb', (d, p) => {
      const r = d.rbox!;
      return Math.max(Math.abs(d.score - p.score), ...[r.cx, r.cy, r.w, r.h].map((v, i) => Math.abs(v - p.rbox![i]!)), angleGap(r.angle, p.rbox![4]!));
    });
    console.log(`python SDK, rotated, 8 views: ${count} boxes (${plainScores.length} with one view), max difference to the engine ${diff.toFixed(4)} (px, degrees and score)`);
    expect(count).toBeGreaterThan(5);
    expect(diff).toBeLessThan(0.05);
    expect(JSON.stringify(plainScores)).not.toBe(JSON.stringify(scores));
  }, 300_000);
});
