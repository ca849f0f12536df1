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
    const script = `
import json, sys, cv2
sys.path.insert(0, sys.argv[1])
from loupe_sdk import Model
m = Model("model-raw.onnx")
val = json.load(open("all.json"))
print(json.dumps({im["id"]: m.detect(cv2.imread("images/" + im["file_name"])) for im in val["images"]}))
`;
    const sdk = await run(PY, ['-c', script, path.join(ROOT, 'apps/server/sdk/python')], { cwd: work, env: { PATH: process.env.PATH }, maxBuffer: 64 << 20 });
    const mine = JSON.parse(sdk.stdout) as Record<string, { classId: number; score: number; rbox: { cx: number; cy: number; w: number; h: number; angle: number } }[]>;
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
