// Segmentation benchmark on generated parts (plates, washers, pins on a textured, unevenly lit background; the
// shared data has no masks): train for BENCH_TRAIN_SECONDS (default 600), test on the validation images, and
// compare the measurements of the predicted instances with those of the labels (same class, nearest centroid).
// Ends with one line: BENCH segment mIoU=… dice=… pixel_acc=… major_err_px=… angle_err_deg=… train_s=… img_per_s=…
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PY, runEngine } from "./engine-run.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 600);
const N = Number(process.env.BENCH_IMAGES ?? 400);
const PARAMS = (process.env.BENCH_PARAMS ?? "model=p imgsz=256 batch=16 epochs=40 scheduler=cosine warmup_epochs=0.5 close_mosaic=2 degrees=180 flipud=0.5 cache=true patience=0").split(/\s+/);

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model ?? "cpu"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}`);
const work = mkdtempSync(join(tmpdir(), "loupe-bench-segment-"));
const data = join(work, "data");
const made = JSON.parse(execFileSync(PY, [join(ROOT, "bench/segment-data.py"), data, "--n", String(N), "--size", "256"], { encoding: "utf8" }));
console.log(`generated: ${made.train} train / ${made.val} val images, ${made.polygons} polygons (256x256)`);
const t0 = Date.now();
const summary = await runEngine(["train", "--task", "segment", "--data", join(data, "all.json"), "--images", join(data, "images"),
  "--out", join(work, "run"), "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
const test = await runEngine(["test", "--model", join(work, "run/best.pt"), "--data", join(data, "val.json"), "--images", join(data, "images"),
  "--out", join(work, "pred.json")]);
await runEngine(["measure", "--data", join(data, "val.json"), "--out", join(work, "truth.json")]);
const preds = JSON.parse(readFileSync(join(work, "pred.json"), "utf8"));
const truth = JSON.parse(readFileSync(join(work, "truth.json"), "utf8")).images;

// Each labelled part against the predicted instance of its class with the nearest centroid (within half its length).
const errs = { major: [], minor: [], angle: [] };
let found = 0;
let total = 0;
for (const im of truth) {
  const mine = preds.filter((p) => p.image_id === im.image_id);
  for (const o of im.objects) {
    total++;
    const t = o.measure;
    let best = null;
    let bestD = Infinity;
    for (const p of mine) {
      if (p.category_id !== o.category_id) continue;
      const d = Math.hypot(p.measure.centroid_x - t.centroid_x, p.measure.centroid_y - t.centroid_y);
      if (d < bestD) [best, bestD] = [p, d];
    }
    if (!best || bestD > t.major_axis / 2) continue;
    found++;
    errs.major.push(Math.abs(best.measure.major_axis - t.major_axis));
    errs.minor.push(Math.abs(best.measure.minor_axis - t.minor_axis));
    if (o.label !== "washer") errs.angle.push(Math.abs(((best.measure.angle - t.angle + 90) % 180 + 180) % 180 - 90));
  }
}
const median = (a) => (a.length ? [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] : NaN);
console.log(`validation: mIoU ${test.mIoU.toFixed(4)}  dice ${test.dice.toFixed(4)}  pixel accuracy ${test.pixel_accuracy.toFixed(4)}`);
for (const [name, v] of Object.entries(test.per_class)) console.log(`  ${name.padStart(8)}  IoU ${v.IoU.toFixed(3)}  dice ${v.dice.toFixed(3)}`);
console.log(`measurement: ${found}/${total} labelled parts matched; median |error| major ${median(errs.major).toFixed(2)} px, minor ${median(errs.minor).toFixed(2)} px, angle ${median(errs.angle).toFixed(2)} deg (plates and pins)`);
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(1)} img/s), wall ${wall.toFixed(0)} s; inference ${test.inference_ms.toFixed(1)} ms/image`);
console.log(`BENCH segment mIoU=${test.mIoU.toFixed(4)} dice=${test.dice.toFixed(4)} pixel_acc=${test.pixel_accuracy.toFixed(4)} matched=${(found / Math.max(total, 1)).toFixed(3)} major_err_px=${median(errs.major).toFixed(2)} angle_err_deg=${median(errs.angle).toFixed(2)} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(1)}`);
