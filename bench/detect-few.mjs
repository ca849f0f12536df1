// Few-image detection benchmark: our users' normal case (30-300 labelled images) on real data. BENCH_IMAGES
// DeepPCB trainval images (default 60, drawn with a fixed seed, BENCH_SAMPLE_SEED) train the detector with the
// platform's default parameters except `model=auto` (p on a CPU training in float32, n on one with AMX, where
// bfloat16 makes n's 4x FLOPs cost about 2x p's time; auto is also the form's default);
// BENCH_PARAMS replaces that. A third as many other trainval images validate it as the platform's split would,
// and best.pt is tested on DeepPCB's whole test split (500 images, partly of board designs the sample never
// shows). BENCH_TRAIN_SECONDS caps training (default 1800; the default 100 epochs end sooner). Skipped with a
// message when ../shared/data/deeppcb is absent.
// Ends with one line: BENCH detect-few mAP50=… mAP50_95=… images=… epochs=… train_s=… img_per_s=…
// BENCH_SPEED_ONLY=1 measures training speed alone (with a short BENCH_TRAIN_SECONDS: p against n on a CPU
// without AMX, engine/BENCHMARKS-FEW.md): no test split; the last line is
// BENCH detect-few-speed params=… images=… epochs=… train_s=… img_per_s=… dtype=…
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { logMachine, runEngine } from "./engine-run.mjs";
import { shuffled } from "./sample.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DATA = resolve(ROOT, "../shared/data/deeppcb");
const IMAGES = Number(process.env.BENCH_IMAGES ?? 60);
const SAMPLE_SEED = Number(process.env.BENCH_SAMPLE_SEED ?? 1);
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 1800);
const PARAMS = (process.env.BENCH_PARAMS ?? "model=auto").split(/\s+/).filter(Boolean);
const SPEED_ONLY = process.env.BENCH_SPEED_ONLY === "1";

if (!existsSync(join(DATA, "coco_trainval.json"))) {
  console.log(`detect-few: skipped, dataset folder ${DATA} is absent`);
  process.exit(0);
}

function subset(coco, images) {
  const ids = new Set(images.map((i) => i.id));
  return { images, annotations: coco.annotations.filter((a) => ids.has(a.image_id)), categories: coco.categories };
}

logMachine();
const trainval = JSON.parse(readFileSync(join(DATA, "coco_trainval.json"), "utf8"));
const drawn = shuffled([...trainval.images].sort((a, b) => a.id - b.id), SAMPLE_SEED);
const nVal = Math.max(Math.round(IMAGES / 3), 6);
const work = mkdtempSync(join(tmpdir(), "loupe-bench-detect-few-"));
const trainJson = join(work, "train.json");
const valJson = join(work, "val.json");
const train = subset(trainval, drawn.slice(0, IMAGES));
writeFileSync(trainJson, JSON.stringify(train));
writeFileSync(valJson, JSON.stringify(subset(trainval, drawn.slice(IMAGES, IMAGES + nVal))));
const series = new Set(train.images.map((i) => i.file_name.slice(0, 3)));
console.log(`sample (seed ${SAMPLE_SEED}): ${IMAGES} training images with ${train.annotations.length} boxes from ${series.size} board designs, ${nVal} validation images`);

const out = join(work, "run");
const summary = await runEngine(["train", "--task", "detect", "--data", trainJson, "--val", valJson,
  "--images", join(DATA, "images"), "--out", out, "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
if (SPEED_ONLY) {
  console.log(`BENCH detect-few-speed params=${PARAMS.join(",")} images=${IMAGES} epochs=${summary.total_epochs} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(2)} dtype=${summary.train_dtype}`);
  process.exit(0);
}
const test = await runEngine(["test", "--model", join(out, "best.pt"), "--data", join(DATA, "coco_test.json"),
  "--images", join(DATA, "images"), "--out", join(work, "test.json")]);

console.log(`validation (${nVal} images): mAP50 ${summary.mAP50.toFixed(4)} at the best epoch, ${summary.best_epoch ?? "?"} of ${summary.total_epochs}`);
console.log(`test split (${test.images} images): mAP50 ${test.mAP50.toFixed(4)}  mAP50-95 ${test.mAP50_95.toFixed(4)}  P ${test.precision.toFixed(3)} R ${test.recall.toFixed(3)}`);
for (const [name, v] of Object.entries(test.per_class)) console.log(`  ${name.padStart(10)}  AP50 ${v.AP50.toFixed(3)}  AP50-95 ${v.AP50_95.toFixed(3)}`);
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(2)} img/s); inference ${test.inference_ms.toFixed(1)} ms/image`);
console.log(`BENCH detect-few mAP50=${test.mAP50.toFixed(4)} mAP50_95=${test.mAP50_95.toFixed(4)} images=${IMAGES} epochs=${summary.total_epochs} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(2)}`);
