// Segmentation benchmark on real steel-strip defects: SD-saliency-900 (LOUPE_SEGMENT_REAL_DIR, default
// /work/shared/data/sd-saliency-900; 900 grey 200x200 images of inclusions, patches and scratches with 0/255 masks,
// the class from the file-name prefix). bench/segment-real-data.py turns the masks into COCO polygons of their
// image's class (validation: names sorted as plain strings, index % 5 == 4). The engine trains with its DEFAULT
// parameters (only the data and BENCH_TRAIN_SECONDS, default 1200, are given; BENCH_PARAMS adds --set pairs for
// experiments), tests the best weights on the validation images (--masks rle), and the helper scores them against
// the original masks at full resolution: per-class IoU, mIoU over the defect classes, and defect recall (share of
// validation images where a predicted defect pixel overlaps the true mask). Ends with one line:
// BENCH segment-real mIoU=… defect_recall=… train_s=…
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENV, PY, logMachine, runEngine } from "./engine-run.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = process.env.LOUPE_SEGMENT_REAL_DIR ?? "/work/shared/data/sd-saliency-900";
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 1200);
const PARAMS = (process.env.BENCH_PARAMS ?? "").split(/\s+/).filter(Boolean);
const HELPER = join(ROOT, "bench/segment-real-data.py");

if (!existsSync(join(SRC, "images")) || !existsSync(join(SRC, "masks"))) {
  console.error(`bench:segment-real needs SD-saliency-900 (images/ and masks/) at ${SRC}; set LOUPE_SEGMENT_REAL_DIR to its folder`);
  process.exit(2);
}
logMachine();
const load = () => loadavg().map((v) => v.toFixed(2)).join(" ");
const work = mkdtempSync(join(tmpdir(), "loupe-bench-segment-real-"));
const data = join(work, "data");
const made = JSON.parse(execFileSync(PY, [HELPER, "prepare", SRC, data], { encoding: "utf8", env: ENV }));
console.log(`data: ${made.train} train / ${made.val} val images, ${made.polygons} polygons, classes ${made.classes.join(" ")}; ` +
  `the polygons redraw the masks at IoU ${made.redraw_iou}`);
console.log(`load before training: ${load()}`);
const images = join(SRC, "images");
const summary = await runEngine(["train", "--task", "segment", "--data", join(data, "train.json"), "--val", join(data, "val.json"),
  "--images", images, "--out", join(work, "run"), "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
console.log(`load after training: ${load()}`);
const test = await runEngine(["test", "--model", join(work, "run/best.pt"), "--data", join(data, "val.json"), "--images", images,
  "--out", join(work, "pred.json"), "--masks", "rle"]);
const s = JSON.parse(execFileSync(PY, [HELPER, "score", SRC, join(data, "val.json"), join(work, "pred.json")], { encoding: "utf8", env: ENV }));
console.log(`engine's own validation (model resolution): mIoU ${test.mIoU.toFixed(4)}, pixel accuracy ${test.pixel_accuracy.toFixed(4)}`);
console.log("full resolution, against the original masks:");
for (const [name, iou] of Object.entries(s.per_class)) {
  console.log(`  ${name.padStart(4)}  IoU ${iou.toFixed(4)}  found ${s.found[name]}/${s.defective[name]} images`);
}
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(1)} img/s); ` +
  `inference ${test.inference_ms.toFixed(1)} ms/image; work folder ${work}`);
console.log(`BENCH segment-real mIoU=${s.mIoU.toFixed(4)} defect_recall=${s.defect_recall.toFixed(4)} train_s=${summary.train_time_s.toFixed(0)}`);
