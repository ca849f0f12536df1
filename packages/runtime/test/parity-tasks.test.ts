import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModel } from "../src/index.js";

// The engine is Debian's python3 with Debian's torch, never the python3 first on PATH.
const PY = "/usr/bin/python3";
const ROOT = resolve(import.meta.dirname, "../../..");
const env = { ...process.env, PYTHONPATH: join(ROOT, "engine"), OMP_WAIT_POLICY: "PASSIVE" };
const work = mkdtempSync(join(tmpdir(), "loupe-runtime-tasks-"));
const run = promisify(execFile);
const engine = (cwd: string, ...args: string[]) => run(PY, ["-m", "loupe_engine", ...args], { env, cwd, maxBuffer: 64 << 20 });

interface Img { id: number; w: number; h: number; rgb: Uint8Array }

/**
 * Draw the engine's shape dataset (`shapes`: its kind, e.g. multi for multi-label classification), train a tiny
 * model of `task`, export it at 64×64 and test it with the engine.
 */
async function prepare(task: "classify" | "segment", testArgs: string[], shapes: string = task): Promise<{ dir: string; images: Img[] }> {
  const dir = join(work, shapes);
  await run(PY, [join(ROOT, "engine/tests/shapes.py"), dir, shapes, "--n", "16", "--size", "64"], { env });
  await engine(dir, "train", "--task", task, "--data", "all.json", "--images", "images", "--out", "run", "--set", "model=p",
    "--set", "imgsz=64", "--set", "epochs=3", "--set", "mosaic=0", "--set", "seed=1", "--set", "val=false");
  await engine(dir, "export", "--model", "run/best.pt", "--format", "onnx", "--width", "64", "--height", "64", "--out", "model.onnx");
  await engine(dir, "test", "--model", "run/best.pt", "--data", "all.json", "--images", "images", "--out", "pred.json", ...testArgs);
  await run(PY, ["-c", `
import cv2, json
for im in json.load(open("all.json"))["images"]:
    open("%d.rgb" % im["id"], "wb").write(cv2.imread("images/" + im["file_name"])[..., ::-1].tobytes())
`], { env, cwd: dir });
  const coco = JSON.parse(readFileSync(join(dir, "all.json"), "utf8")) as { images: { id: number; width: number; height: number }[] };
  return { dir, images: coco.images.map((im) => ({ id: im.id, w: im.width, h: im.height, rgb: new Uint8Array(readFileSync(join(dir, `${im.id}.rgb`))) })) };
}

/** Uncompressed COCO RLE (column-major, starting with background) to the pixel indices it covers, row-major. */
function rlePixels(r: { size: [number, number]; counts: number[] }): number[] {
  const [h, w] = r.size;
  const out: number[] = [];
  let pos = 0;
  r.counts.forEach((n, k) => {
    if (k % 2) for (let i = pos; i < pos + n; i++) out.push((i % h) * w + Math.floor(i / h));
    pos += n;
  });
  return out;
}

describe("runtime matches the engine on classification and segmentation", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("classifies every image as the engine does, with its probabilities", async () => {
    const { dir, images } = await prepare("classify", []);
    const preds = JSON.parse(readFileSync(join(dir, "pred.json"), "utf8")) as { image_id: number; label: string; scores: Record<string, number> }[];
    const model = await loadModel(join(dir, "model.onnx"));
    expect(model.meta).toMatchObject({ task: "classify", labels: ["disc", "square"], inputWidth: 64, inputHeight: 64, multiLabel: false });
    await expect(model.detect(images[0]!.rgb, 64, 64)).rejects.toThrow(/classify/);
    let maxDiff = 0;
    for (const im of images) {
      const mine = await model.classify(im.rgb, im.w, im.h);
      const theirs = preds.find((p) => p.image_id === im.id)!;
      expect(mine.map((c) => c.label)).toHaveLength(2);
      expect(mine[0]!.score).toBeGreaterThanOrEqual(mine[1]!.score);
      expect(mine[0]!.label).toBe(theirs.label);
      for (const c of mine) maxDiff = Math.max(maxDiff, Math.abs(c.score - theirs.scores[c.label]!));
    }
    await model.close();
    console.log(`classify: ${images.length} images, max probability difference ${maxDiff.toExponential(2)}`);
    expect(maxDiff).toBeLessThan(1e-3);
  });

  it("keeps the classes a multi-label model finds at the exported threshold, as the engine's test does", async () => {
    const { dir, images } = await prepare("classify", ["--conf", "0.5"], "multi");
    const preds = JSON.parse(readFileSync(join(dir, "pred.json"), "utf8")) as { image_id: number; labels: string[]; scores: Record<string, number> }[];
    const model = await loadModel(join(dir, "model.onnx"));
    expect(model.meta).toMatchObject({ task: "classify", labels: ["disc", "square"], multiLabel: true, conf: 0.5 });
    let maxDiff = 0;
    let kept = 0;
    for (const im of images) {
      const mine = await model.classify(im.rgb, im.w, im.h);
      const theirs = preds.find((p) => p.image_id === im.id)!;
      for (const c of mine) maxDiff = Math.max(maxDiff, Math.abs(c.score - theirs.scores[c.label]!));
      // A probability within float noise of the threshold may fall on either side: that image's set is not compared.
      const near = Object.values(theirs.scores).some((p) => Math.abs(p - 0.5) < 1e-4);
      if (!near) expect(mine.map((c) => c.label).sort(), `image ${im.id}`).toEqual([...theirs.labels].sort());
      for (const c of mine) expect(c.score).toBeGreaterThanOrEqual(0.5);
      kept += mine.length;
    }
    await model.close();
    console.log(`multi-label classify: ${images.length} images, ${kept} classes kept, max probability difference ${maxDiff.toExponential(2)}`);
    expect(maxDiff).toBeLessThan(1e-3);
  });

  it("finds the engine's instances and paints its pixels in the class map", async () => {
    const { dir, images } = await prepare("segment", ["--masks", "rle"]);
    type Inst = { image_id: number; category_id: number; score: number; bbox: number[]; area: number; segmentation: { size: [number, number]; counts: number[] } };
    const preds = JSON.parse(readFileSync(join(dir, "pred.json"), "utf8")) as Inst[];
    // The same instances with their outlines (polygons through the boundary pixel centres).
    await engine(dir, "test", "--model", "run/best.pt", "--data", "all.json", "--images", "images", "--out", "poly.json");
    const outlines = JSON.parse(readFileSync(join(dir, "poly.json"), "utf8")) as (Omit<Inst, "segmentation"> & { segmentation: number[][] })[];
    const model = await loadModel(join(dir, "model.onnx"));
    expect(model.meta).toMatchObject({ task: "segment", labels: ["disc", "square"], overlapMask: true });
    let count = 0;
    let scoreDiff = 0;
    let pixels = 0;
    let differs = 0;
    for (const im of images) {
      const seg = await model.segment(im.rgb, im.w, im.h);
      expect(seg.classMap).toHaveLength(im.w * im.h);
      const theirs = preds.filter((p) => p.image_id === im.id);
      const key = (c: number, b: number[]) => `${c}:${b.join(",")}`;
      const mine = new Map(seg.instances.map((o) => [key(o.classId + 1, o.bbox), o]));
      const same = (t: Inst): boolean => {
        const o = mine.get(key(t.category_id, t.bbox));
        const outline = outlines.find((p) => p.image_id === im.id && key(p.category_id, p.bbox) === key(t.category_id, t.bbox));
        return !!o && o.area === t.area && JSON.stringify(o.polygon.flat()) === JSON.stringify(outline?.segmentation[0] ?? [])
          && rlePixels(t.segmentation).every((p) => seg.classMap[p] === t.category_id);
      };
      // A 3-epoch segmenter leaves pixels whose two best classes are all but tied, which ONNX Runtime's
      // and torch's kernels may settle differently (one pixel can join or split two components): such an image is
      // counted, not compared; everything else must agree exactly.
      if (seg.instances.length !== theirs.length || !theirs.every(same)) {
        differs++;
        continue;
      }
      for (const t of theirs) {
        scoreDiff = Math.max(scoreDiff, Math.abs(mine.get(key(t.category_id, t.bbox))!.score - t.score));
        pixels += t.area;
        count++;
      }
    }
    await model.close();
    console.log(`segment: ${count} instances, ${pixels} pixels alike, ${differs} of ${images.length} images segmented differently at a tie, max score difference ${scoreDiff.toExponential(2)}`);
    expect(differs).toBeLessThanOrEqual(images.length / 8);
    expect(count).toBeGreaterThan(0);
    expect(scoreDiff).toBeLessThan(1e-3);
  });
});
