// Rotated-box benchmark on the segmentation benchmark's generated parts (plates, washers, pins lying in any
// orientation; bench/segment-data.py writes each part's exact rotated box): train `obb` for BENCH_TRAIN_SECONDS
// (default 600) without validation (the last epoch's weights: no test image picks them), test on the validation
// images with one view and with test-time augmentation (BENCH_TTA, default dihedral), and compare each labelled
// part's rotated box with the predicted box of its class with the nearest centre (score >= 0.25).
// Ends with one line: BENCH obb mAP50=… mAP50_95=… matched=… side_err_px=… angle_err_deg=… train_s=… img_per_s=…
// mAP50_tta=… mAP50_95_tta=… matched_tta=… side_err_px_tta=… angle_err_deg_tta=…
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generatedParts, logMachine, runEngine } from "./engine-run.mjs";

const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 600);
const N = Number(process.env.BENCH_IMAGES ?? 400);
const TTA = process.env.BENCH_TTA ?? "dihedral";
const PARAMS = (process.env.BENCH_PARAMS ?? "model=p imgsz=256 batch=16 epochs=40 scheduler=cosine warmup_epochs=0.5 close_mosaic=5 degrees=180 flipud=0.5 cache=true patience=0 val=false").split(/\s+/);

logMachine();
const { work, data } = generatedParts("obb", N);
const t0 = Date.now();
const summary = await runEngine(["train", "--task", "obb", "--data", join(data, "all.json"), "--images", join(data, "images"),
  "--out", join(work, "run"), "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
const tested = (name, ...extra) => runEngine(["test", "--model", join(work, "run/best.pt"), "--data", join(data, "val.json"),
  "--images", join(data, "images"), "--out", join(work, name), ...extra]);
const val = JSON.parse(readFileSync(join(data, "val.json"), "utf8"));
const median = (a) => (a.length ? [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] : NaN);
/** w >= h, the angle turned by 90 degrees where they swap. */
const canonical = ([cx, cy, w, h, a]) => (w >= h ? [cx, cy, w, h, a] : [cx, cy, h, w, a + 90]);
const angleGap = (a, b) => Math.abs(((((a - b + 90) % 180) + 180) % 180) - 90);

/** Each labelled part against the predicted box of its class with the nearest centre (within half its length). */
function measured(file) {
  const preds = JSON.parse(readFileSync(join(work, file), "utf8"));
  const errs = { side: [], angle: [] };
  let found = 0;
  for (const a of val.annotations) {
    const t = canonical(a.rbox);
    let best = null;
    let bestD = Infinity;
    for (const p of preds) {
      if (p.image_id !== a.image_id || p.category_id !== a.category_id) continue;
      const d = Math.hypot(p.rbox[0] - t[0], p.rbox[1] - t[1]);
      if (d < bestD) [best, bestD] = [p, d];
    }
    if (!best || bestD > t[2] / 2) continue;
    found++;
    const r = canonical(best.rbox);
    errs.side.push(Math.abs(r[2] - t[2]), Math.abs(r[3] - t[3]));
    if (a.category_id !== 2) errs.angle.push(angleGap(r[4], t[4])); // a washer's angle means nothing
  }
  return { found, total: val.annotations.length, side: median(errs.side), angle: median(errs.angle) };
}
const mText = (r) => `${r.found}/${r.total} labelled parts matched; median |error| of the sides ${r.side.toFixed(2)} px, angle ${r.angle.toFixed(2)} deg (plates and pins)`;
const classes = (t) => Object.entries(t.per_class).map(([name, v]) => `  ${name.padStart(8)}  AP50 ${v.AP50.toFixed(3)}  AP50-95 ${v.AP50_95.toFixed(3)}`).join("\n");

const test = await tested("pred.json");
const m = measured("pred.json");
console.log(`validation: mAP50 ${test.mAP50.toFixed(4)}  mAP50-95 ${test.mAP50_95.toFixed(4)}\n${classes(test)}`);
console.log(`boxes: ${mText(m)}`);
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(1)} img/s), wall ${wall.toFixed(0)} s; inference ${test.inference_ms.toFixed(1)} ms/image`);
// The same weights, each image seen in the views of BENCH_TTA: centres and shape matrices averaged per anchor.
const tta = await tested("pred-tta.json", "--tta", TTA);
const mt = measured("pred-tta.json");
console.log(`with --tta ${TTA}: mAP50 ${tta.mAP50.toFixed(4)}  mAP50-95 ${tta.mAP50_95.toFixed(4)}; ${tta.inference_ms.toFixed(1)} ms/image\n${classes(tta)}`);
console.log(`boxes with --tta ${TTA}: ${mText(mt)}`);
const share = (r) => (r.found / Math.max(r.total, 1)).toFixed(3);
console.log(
  `BENCH obb mAP50=${test.mAP50.toFixed(4)} mAP50_95=${test.mAP50_95.toFixed(4)} matched=${share(m)} side_err_px=${m.side.toFixed(2)} ` +
    `angle_err_deg=${m.angle.toFixed(2)} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(1)} ` +
    `mAP50_tta=${tta.mAP50.toFixed(4)} mAP50_95_tta=${tta.mAP50_95.toFixed(4)} matched_tta=${share(mt)} side_err_px_tta=${mt.side.toFixed(2)} angle_err_deg_tta=${mt.angle.toFixed(2)}`,
);
