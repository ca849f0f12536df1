// OCR benchmark on real photos: plates-eu-br (222 photos of European and Brazilian cars, each plate's box and text;
// the images' `split`: 178 train, 44 val). Trains the OCR task with the engine's default parameters for
// BENCH_TRAIN_SECONDS of wall time (default 1200), then tests best.pt on the validation images end to end
// (the plate found by the detector and read by the recognizer). The zero-shot reader (ocr/baseline.py) reads the
// same validation boxes in the training's final evaluation. Data: LOUPE_OCR_REAL_DIR (default
// /work/shared/data/plates-eu-br: coco.json and images/). Extra engine settings: BENCH_PARAMS ("key=value ...").
// Ends with one line: BENCH ocr-real char_acc=… line_acc=… baseline_char_acc=… train_s=…
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { logMachine, runEngine, PY } from "./engine-run.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 1200);
const DIR = process.env.LOUPE_OCR_REAL_DIR ?? "/work/shared/data/plates-eu-br";
const PARAMS = (process.env.BENCH_PARAMS ?? "").split(/\s+/).filter(Boolean);

if (!existsSync(join(DIR, "coco.json")) || !existsSync(join(DIR, "images"))) {
  console.error(`bench:ocr-real needs the plates-eu-br set: ${DIR}/coco.json (images with "split" train/val, ` +
    `annotations with "text") and ${DIR}/images/. Set LOUPE_OCR_REAL_DIR to where it is.`);
  process.exit(2);
}
logMachine();
const work = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "loupe-bench-ocr-real-"));
const data = join(work, "data");
const counts = JSON.parse(execFileSync(PY, [join(ROOT, "bench/ocr-real-data.py"), join(DIR, "coco.json"), data], { encoding: "utf8" }));
console.log(`plates-eu-br: ${JSON.stringify(counts)}`);
const out = join(work, "run");
const t0 = Date.now();
const train = await runEngine(["train", "--task", "ocr", "--data", join(data, "train.json"), "--val", join(data, "val.json"),
  "--images", join(DIR, "images"), "--out", out, "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
const conf = Math.max(0.05, Math.min(0.5, train.suggested_conf ?? 0.25));
const test = await runEngine(["test", "--model", join(out, "best.pt"), "--data", join(data, "val.json"), "--images", join(DIR, "images"),
  "--out", join(work, "predictions.json"), "--conf", conf.toFixed(3)]);
const preds = JSON.parse(readFileSync(join(work, "predictions.json"), "utf8"));
const truth = JSON.parse(readFileSync(join(data, "val.json"), "utf8"));
for (const a of truth.annotations.slice(0, 12)) {
  const read = preds.filter((p) => p.image_id === a.image_id).map((p) => p.text);
  console.log(`  ${a.text.padEnd(10)} read on its image: ${JSON.stringify(read)}`);
}
const f = (v) => (v == null ? "none" : v.toFixed(4));
console.log(`charset (${train.charset.length}): ${train.charset}; recognizer input 32x${train.rec_width}; best epochs ${JSON.stringify(train.best_epochs)}`);
console.log(`training: ${train.total_epochs} epochs, ${train.total_time_s} s (wall ${wall.toFixed(0)} s with the final evaluation)`);
console.log(`zero-shot baseline on the validation boxes: ${train.baseline_reader ?? "none installed"} char_acc ${f(train.baseline_char_acc)} line_acc ${f(train.baseline_line_acc)}`);
console.log(`validation at conf ${conf.toFixed(3)} (${test.images} images, ${test.lines} plates): detection P ${f(test.precision)} R ${f(test.recall)} mAP50 ${f(test.mAP50)}`);
console.log(`end to end: char_acc ${f(test.char_acc)}  line_acc ${f(test.line_acc)}  ned ${f(test.ned)}; recognizer on the labelled boxes: char_acc ${f(test.rec_char_acc)} line_acc ${f(test.rec_line_acc)}`);
console.log(`BENCH ocr-real char_acc=${f(test.char_acc)} line_acc=${f(test.line_acc)} baseline_char_acc=${f(train.baseline_char_acc)} train_s=${train.total_time_s.toFixed(0)}`);
