// Segmentation benchmark on generated parts (plates, washers, pins on a textured, unevenly lit background; the
// shared data has no masks): train for BENCH_TRAIN_SECONDS (default 600) without validation (the last epoch's
// weights: the validation images are the test images, so none of them picks the weights), test on them, and
// compare the measurements of the predicted instances with those of the labels (same class, nearest centroid);
// then the same weights with test-time augmentation (BENCH_TTA, default dihedral: the parts lie in any orientation).
// Ends with one line: BENCH segment mIoU=… dice=… pixel_acc=… matched=… major_err_px=… angle_err_deg=… train_s=…
// img_per_s=… mIoU_tta=… matched_tta=… major_err_px_tta=… angle_err_deg_tta=…
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedParts, logMachine, runEngine } from "./engine-run.mjs";

const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 600);
const N = Number(process.env.BENCH_IMAGES ?? 400);
const TTA = process.env.BENCH_TTA ?? "dihedral";
const PARAMS = (process.env.BENCH_PARAMS ?? "model=p imgsz=256 batch=16 epochs=40 scheduler=cosine warmup_epochs=0.5 close_mosaic=2 degrees=180 flipud=0.5 cache=true patience=0 val=false").split(/\s+/);

logMachine();
const { work, data } = generatedParts("segment", N);
const t0 = Date.now();
const summary = await runEngine(["train", "--task", "segment", "--data", join(data, "all.json"), "--images", join(data, "images"),
  "--out", join(work, "run"), "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
const tested = (name, ...extra) => runEngine(["test", "--model", join(work, "run/best.pt"), "--data", join(data, "val.json"),
  "--images", join(data, "images"), "--out", join(work, name), ...extra]);
const test = await tested("pred.json");
await runEngine(["measure", "--data", join(data, "val.json"), "--out", join(work, "truth.json")]);
const truth = JSON.parse(readFileSync(join(work, "truth.json"), "utf8")).images;
const median = (a) => (a.length ? [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] : NaN);

/** Each labelled part against the predicted instance of its class with the nearest centroid (within half its length). */
function measured(file) {
  const preds = JSON.parse(readFileSync(join(work, file), "utf8"));
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
  return { found, total, major: median(errs.major), minor: median(errs.minor), angle: median(errs.angle) };
}
const m = measured("pred.json");
const mText = (r) => `${r.found}/${r.total} labelled parts matched; median |error| major ${r.major.toFixed(2)} px, minor ${r.minor.toFixed(2)} px, angle ${r.angle.toFixed(2)} deg (plates and pins)`;
const classes = (t) => Object.entries(t.per_class).map(([name, v]) => `  ${name.padStart(8)}  IoU ${v.IoU.toFixed(3)}  dice ${v.dice.toFixed(3)}`).join("\n");
console.log(`validation: mIoU ${test.mIoU.toFixed(4)}  dice ${test.dice.toFixed(4)}  pixel accuracy ${test.pixel_accuracy.toFixed(4)}\n${classes(test)}`);
console.log(`measurement: ${mText(m)}`);
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(1)} img/s), wall ${wall.toFixed(0)} s; inference ${test.inference_ms.toFixed(1)} ms/image`);
// The same weights, each image seen in the views of BENCH_TTA and the probabilities averaged pixel by pixel.
const tta = await tested("pred-tta.json", "--tta", TTA);
const mt = measured("pred-tta.json");
console.log(`with --tta ${TTA}: mIoU ${tta.mIoU.toFixed(4)}  dice ${tta.dice.toFixed(4)}  pixel accuracy ${tta.pixel_accuracy.toFixed(4)}; ${tta.inference_ms.toFixed(1)} ms/image\n${classes(tta)}`);
console.log(`measurement with --tta ${TTA}: ${mText(mt)}`);
console.log(
  `BENCH segment mIoU=${test.mIoU.toFixed(4)} dice=${test.dice.toFixed(4)} pixel_acc=${test.pixel_accuracy.toFixed(4)} matched=${(m.found / Math.max(m.total, 1)).toFixed(3)} ` +
    `major_err_px=${m.major.toFixed(2)} angle_err_deg=${m.angle.toFixed(2)} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(1)} ` +
    `mIoU_tta=${tta.mIoU.toFixed(4)} matched_tta=${(mt.found / Math.max(mt.total, 1)).toFixed(3)} major_err_px_tta=${mt.major.toFixed(2)} angle_err_deg_tta=${mt.angle.toFixed(2)}`,
);
