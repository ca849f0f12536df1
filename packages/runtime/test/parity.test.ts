import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModel, type Detection } from "../src/index.js";

// The engine is Debian's python3 with Debian's torch, never the python3 first on PATH.
const PY = "/usr/bin/python3";
const ROOT = resolve(import.meta.dirname, "../../..");
const env = { ...process.env, PYTHONPATH: join(ROOT, "engine"), OMP_WAIT_POLICY: "PASSIVE" };
const work = mkdtempSync(join(tmpdir(), "loupe-runtime-"));

// async, so vitest's worker keeps answering while the engine trains
const run = promisify(execFile);
async function engine(...args: string[]): Promise<void> {
  await run(PY, ["-m", "loupe_engine", ...args], { env, cwd: ROOT, maxBuffer: 64 << 20 });
}

interface CocoResult { image_id: number; category_id: number; bbox: number[]; score: number; rbox?: number[] }

const trained = new Map<string, Promise<void>>();

/** A tiny model per task, trained once. */
function train(task: "detect" | "obb"): Promise<void> {
  const dir = join(work, task);
  if (!trained.has(task)) {
    trained.set(task, (async () => {
      await run(PY, [join(ROOT, "engine/tests/fixtures.py"), dir, "--n", "24", "--size", "64", ...(task === "obb" ? ["--obb"] : [])], { env });
      await engine("train", "--task", task, "--data", join(dir, "train.json"), "--val", join(dir, "val.json"),
        "--images", join(dir, "images"), "--out", join(dir, "run"), "--set", "imgsz=64", "--set", "epochs=30",
        "--set", "mosaic=0", "--set", "seed=1", "--set", "val=false");
    })());
  }
  return trained.get(task)!;
}

/** Export the task's model, and collect the engine's predictions plus raw RGB dumps of the images. */
async function prepare(task: "detect" | "obb", tta = "off"): Promise<{ dir: string; images: { id: number; w: number; h: number; rgb: Uint8Array }[]; preds: CocoResult[] }> {
  const dir = join(work, task);
  await train(task);
  await engine("export", "--model", join(dir, "run/best.pt"), "--format", "onnx", "--width", "64", "--height", "64",
    "--max-det", "300", "--conf", "0.02", "--tta", tta, "--out", join(dir, "model.onnx"));
  await engine("test", "--model", join(dir, "run/best.pt"), "--data", join(dir, "val.json"), "--images", join(dir, "images"),
    "--out", join(dir, "pred.json"), "--conf", "0.02", "--tta", tta);
  await run(PY, ["-c", `
import cv2, json, sys
d = json.load(open(sys.argv[1]))
for im in d["images"]:
    img = cv2.imread(sys.argv[2] + "/" + im["file_name"])[..., ::-1]
    open(sys.argv[3] + "/%d.rgb" % im["id"], "wb").write(img.tobytes())
`, join(dir, "val.json"), join(dir, "images"), dir], { env });
  const coco = JSON.parse(readFileSync(join(dir, "val.json"), "utf8")) as { images: { id: number; width: number; height: number }[] };
  const images = coco.images.map((im) => ({ id: im.id, w: im.width, h: im.height, rgb: new Uint8Array(readFileSync(join(dir, `${im.id}.rgb`))) }));
  const preds = JSON.parse(readFileSync(join(dir, "pred.json"), "utf8")) as CocoResult[];
  return { dir, images, preds };
}

async function compare(task: "detect" | "obb", tta = "off"): Promise<{ maxDiff: number; count: number }> {
  const { dir, images, preds } = await prepare(task, tta);
  const model = await loadModel(join(dir, "model.onnx"));
  expect(model.meta.task).toBe(task);
  expect(model.meta.tta).toBe(tta);
  expect(model.meta.labels).toEqual(["square", "disc"]);
  expect([model.meta.inputWidth, model.meta.inputHeight]).toEqual([64, 64]);
  let maxDiff = 0;
  let count = 0;
  for (const im of images) {
    const mine: Detection[] = await model.detect(im.rgb, im.w, im.h);
    const theirs = preds.filter((p) => p.image_id === im.id).sort((a, b) => b.score - a.score);
    expect(mine.length).toBe(theirs.length);
    theirs.forEach((p, k) => {
      const d = mine[k]!;
      expect(d.classId + 1).toBe(p.category_id);
      const a = task === "obb" ? [d.rbox!.cx, d.rbox!.cy, d.rbox!.w, d.rbox!.h] : [d.box[0], d.box[1], d.box[2] - d.box[0], d.box[3] - d.box[1]];
      const b = task === "obb" ? p.rbox!.slice(0, 4) : p.bbox;
      a.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(v - b[i]!)); });
      count++;
    });
  }
  await model.close();
  return { maxDiff, count };
}

describe("runtime matches the engine", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("returns the engine's boxes and classes for axis-aligned detection", async () => {
    const { maxDiff, count } = await compare("detect");
    console.log(`detect: ${count} boxes, max coordinate difference ${maxDiff.toFixed(4)} px`);
    expect(count).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1);
  });

  it("returns the engine's boxes with test-time augmentation in the graph (8 views: flips and transposes)", async () => {
    const { maxDiff, count } = await compare("detect", "dihedral");
    console.log(`detect, tta dihedral: ${count} boxes, max coordinate difference ${maxDiff.toFixed(4)} px`);
    expect(count).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1);
  });

  it("returns the engine's rotated boxes and classes", async () => {
    const { maxDiff, count } = await compare("obb");
    console.log(`obb: ${count} boxes, max coordinate difference ${maxDiff.toFixed(4)} px`);
    expect(count).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1);
  });

  it("returns the engine's rotated boxes with test-time augmentation in the graph (centres and shape matrices)", async () => {
    const { maxDiff, count } = await compare("obb", "dihedral");
    console.log(`obb, tta dihedral: ${count} boxes, max coordinate difference ${maxDiff.toFixed(4)} px`);
    expect(count).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1);
  });
});
