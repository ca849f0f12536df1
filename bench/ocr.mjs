// OCR benchmark on a text set made here (bench/ocr-data.py; the shared data has no text images): 200 training, 30
// validation and 50 test images of serial numbers, lot codes and dates marked on part-like backgrounds in several
// styles. Trains the OCR task (rotated-box text detector + CNN/BiLSTM/CTC recognizer) for BENCH_TRAIN_SECONDS of
// wall time (default 900), then tests best.pt on the test images: detection mAP50 and end-to-end character
// accuracy, line accuracy and normalised edit distance (plus the recognizer alone on the labelled boxes).
// Ends with one line: BENCH ocr char_acc=… line_acc=… ned=… det_mAP50=… rec_char_acc=… train_s=… epochs=…
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { logMachine, runEngine, PY } from "./engine-run.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 900);
// pico detector at 256 px (text 12-21 px high), batch 8 (more updates per second); no flips (mirrored text is not text); a few degrees of rotation.
const PARAMS = (process.env.BENCH_PARAMS ?? "model=p imgsz=256 batch=8 epochs=80 scheduler=cosine warmup_epochs=1 close_mosaic=2 fliplr=0 degrees=5 patience=0 cache=true seed=1").split(/\s+/);

logMachine();
const work = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "loupe-bench-ocr-"));
const data = join(work, "data");
const counts = JSON.parse(execFileSync(PY, [join(ROOT, "bench/ocr-data.py"), data], { encoding: "utf8" }));
console.log(`generated text images: ${JSON.stringify(counts)}`);
const out = join(work, "run");
const t0 = Date.now();
const train = await runEngine(["train", "--task", "ocr", "--data", join(data, "train.json"), "--val", join(data, "val.json"),
  "--images", join(data, "images"), "--out", out, "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
// at the confidence that maximised F1 on the validation images (the engine's suggestion; never tuned on test)
const conf = Math.max(0.05, Math.min(0.5, train.suggested_conf ?? 0.25));
const test = await runEngine(["test", "--model", join(out, "best.pt"), "--data", join(data, "test.json"), "--images", join(data, "images"),
  "--out", join(work, "predictions.json"), "--conf", conf.toFixed(3)]);
const preds = JSON.parse(readFileSync(join(work, "predictions.json"), "utf8"));
const truth = JSON.parse(readFileSync(join(data, "test.json"), "utf8"));
for (const a of truth.annotations.slice(0, 12)) {
  const read = preds.filter((p) => p.image_id === a.image_id).map((p) => p.text);
  console.log(`  ${a.text.padEnd(16)} read on its image: ${JSON.stringify(read)}`);
}
const f = (v) => v.toFixed(4);
console.log(`charset (${train.charset.length}): ${train.charset}; recognizer input 32x${train.rec_width}, ${train.rec_param_count} parameters`);
console.log(`training: ${train.total_epochs} epochs in ${train.train_time_s.toFixed(0)} s of detector steps, ${train.total_time_s} s in all (wall ${wall.toFixed(0)} s); best epochs ${JSON.stringify(train.best_epochs)}`);
console.log(`validation (30 images): mAP50 ${f(train.mAP50)}  char_acc ${f(train.char_acc)}  line_acc ${f(train.line_acc)}  ned ${f(train.ned)}`);
console.log(`test at conf ${conf.toFixed(3)} (the validation F1 optimum, within 0.05-0.5) (${test.images} images, ${test.lines} lines): detection P ${f(test.precision)} R ${f(test.recall)} mAP50 ${f(test.mAP50)} mAP50-95 ${f(test.mAP50_95)}`);
console.log(`test end to end: char_acc ${f(test.char_acc)}  line_acc ${f(test.line_acc)}  ned ${f(test.ned)}`);
console.log(`test recognizer on the labelled boxes: char_acc ${f(test.rec_char_acc)}  line_acc ${f(test.rec_line_acc)}  ned ${f(test.rec_ned)}`);
console.log(`inference: ${test.inference_ms.toFixed(1)} ms/image detection + ${test.rec_ms_per_image.toFixed(1)} ms/image recognition`);
console.log(`BENCH ocr char_acc=${f(test.char_acc)} line_acc=${f(test.line_acc)} ned=${f(test.ned)} det_mAP50=${f(test.mAP50)} rec_char_acc=${f(test.rec_char_acc)} train_s=${train.total_time_s.toFixed(0)} epochs=${train.total_epochs}`);
