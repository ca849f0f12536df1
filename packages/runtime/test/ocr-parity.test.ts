import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalBox, greedyDecode, loadOcrModel, rectify, type TextLine } from "../src/index.js";

// The engine is Debian's python3 with Debian's torch, never the python3 first on PATH.
const PY = "/usr/bin/python3";
const ROOT = resolve(import.meta.dirname, "../../..");
const env = { ...process.env, PYTHONPATH: join(ROOT, "engine"), OMP_WAIT_POLICY: "PASSIVE" };
const work = mkdtempSync(join(tmpdir(), "loupe-runtime-ocr-"));
const run = promisify(execFile);
const engine = (cwd: string, ...args: string[]) => run(PY, ["-m", "loupe_engine", ...args], { env, cwd, maxBuffer: 64 << 20 });

interface Line { image_id: number; category_id: number; score: number; rbox: number[]; text: string; text_score: number }

describe("runtime OCR matches the engine", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("finds the engine's text boxes and reads the same texts", async () => {
    // drawn text lines (engine/tests/test_ocr.py), a tiny OCR model, its export and the engine's own reading
    await run(PY, [join(ROOT, "engine/tests/test_ocr.py"), work, "--n", "24"], { env });
    // a detector trained this briefly scores its boxes low: compare at a low threshold, and only boxes clear of
    // it (a score within float noise of the threshold may pass in one engine and not in the other)
    const conf = 0.001;
    await engine(work, "train", "--task", "ocr", "--data", "train.json", "--val", "val.json", "--images", "images", "--out", "run",
      "--set", "model=p", "--set", "imgsz=64", "--set", "epochs=30", "--set", "mosaic=0", "--set", "seed=1", "--set", "val=false");
    await engine(work, "export", "--model", "run/best.pt", "--format", "onnx", "--width", "64", "--height", "64", "--max-det", "300",
      "--conf", String(conf), "--out", "model.onnx");
    await engine(work, "test", "--model", "run/best.pt", "--data", "all.json", "--images", "images", "--out", "pred.json", "--conf", String(conf));
    await run(PY, ["-c", `
import cv2, json
for im in json.load(open("all.json"))["images"]:
    open("%d.rgb" % im["id"], "wb").write(cv2.imread("images/" + im["file_name"])[..., ::-1].tobytes())
`], { env, cwd: work });
    const coco = JSON.parse(readFileSync(join(work, "all.json"), "utf8")) as { images: { id: number; width: number; height: number }[] };
    const preds = JSON.parse(readFileSync(join(work, "pred.json"), "utf8")) as Line[];

    const model = await loadOcrModel(join(work, "model.onnx"));
    expect(model.meta).toMatchObject({ task: "ocr", labels: ["code", "lot"], inputWidth: 64, inputHeight: 64 });
    expect(model.recognizer).toMatchObject({ charset: [..."0123456789AB"], blank: 0, inputHeight: 32, inputWidth: 128 });
    // the formats of each class's training texts: 'code' starts with a digit, 'lot' with a letter
    expect(model.textFormats).toHaveLength(2);
    expect(model.textFormats[0]!.every((f) => f.startsWith("9"))).toBe(true);
    expect(model.textFormats[1]!.every((f) => /^[AB]/.test(f))).toBe(true);
    let count = 0;
    let maxDiff = 0;
    let scoreDiff = 0;
    let read = 0;
    for (const im of coco.images) {
      const rgb = new Uint8Array(readFileSync(join(work, `${im.id}.rgb`)));
      // The engine writes scores rounded to 1e-5, so a box within that of the cut may fall on either side of it:
      // every box clear of the cut on one side must be on the other among those not clearly below it.
      const cut = 1.2 * conf;
      const band = 1e-5;
      const allMine = (await model.ocr(rgb, im.width, im.height)).filter((d) => d.score > cut - band);
      const allTheirs = preds.filter((p) => p.image_id === im.id && p.score > cut - band);
      const mine = allMine.filter((d) => d.score > cut + band);
      const theirs = allTheirs.filter((p) => p.score > cut + band);
      for (const p of theirs) {
        // the same box: same class, nearest centre (scores of an untrained detector tie, so ranks may differ)
        const dist = (d: TextLine) => Math.hypot(d.rbox!.cx - p.rbox[0]!, d.rbox!.cy - p.rbox[1]!);
        const d = allMine.filter((m) => m.classId + 1 === p.category_id).sort((a, b) => dist(a) - dist(b))[0]!;
        expect(d, `image ${im.id}: no line at ${p.rbox.join(",")}`).toBeDefined();
        [d.rbox!.cx, d.rbox!.cy, d.rbox!.w, d.rbox!.h].forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(v - p.rbox[i]!)); });
        expect(d.text, `image ${im.id} line at ${p.rbox.join(",")}`).toBe(p.text);
        scoreDiff = Math.max(scoreDiff, Math.abs(d.textScore - p.text_score));
        read += d.text.length > 0 ? 1 : 0;
        count++;
      }
      for (const d of mine) {
        const same = allTheirs.some((p) => p.category_id === d.classId + 1 && Math.hypot(d.rbox!.cx - p.rbox[0]!, d.rbox!.cy - p.rbox[1]!) < 1);
        expect(same, `image ${im.id}: the engine has no line at ${d.rbox!.cx},${d.rbox!.cy}`).toBe(true);
      }
    }
    await model.close();
    console.log(`ocr: ${count} lines (${read} with text), max box difference ${maxDiff.toFixed(4)} px, max text score difference ${scoreDiff.toExponential(2)}`);
    expect(count).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1);
    expect(scoreDiff).toBeLessThan(1e-3);
  }, 420_000); // 30 epochs of both networks: ~2.5 min on 2 busy cores

  it("rectifies and decodes like the engine", async () => {
    // a horizontal gradient: the crop of a box turned by 90 degrees samples it top to bottom
    const w = 40;
    const h = 30;
    const rgb = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rgb.fill(y * 8, (y * w + x) * 3, (y * w + x) * 3 + 3);
    const rec = { charset: ["a", "b"], blank: 0, inputWidth: 128, inputHeight: 32, margin: 0.1, marginX: 0.25, padValue: 114 / 255, lineAspect: 2 };
    const box = canonicalBox(20, 15, 5, 10, 0);
    expect(box).toEqual([20, 15, 10, 5, 90]); // twice as long as high: reads along its long side
    const crop = rectify(rgb, w, h, box, rec);
    expect(crop).toHaveLength(3 * 32 * 128);
    const row = (x: number) => crop[16 * 128 + x]!;
    expect(row(0)).toBeLessThan(row(20)); // reading left to right goes down the image
    // 32 * (10 + 2 * 1.25) / (5 + 2 * 0.5) = 66.7 -> 67 columns of image, then the padding
    expect(crop[16 * 128 + 66]).not.toBeCloseTo(114 / 255, 6);
    expect(crop[16 * 128 + 67]).toBeCloseTo(114 / 255, 6);
    const probs = new Float32Array([0.1, 0.8, 0.1, 0.1, 0.8, 0.1, 0.9, 0.05, 0.05, 0.1, 0.2, 0.7]);
    const { text, score } = greedyDecode(probs, 4, 3, rec.charset);
    expect(text).toBe("ab"); // a, a (repeat), blank, b
    expect(score).toBeCloseTo((0.8 + 0.7) / 2, 6);
  });
});
