// Classification benchmark: DeepPCB's labelled defects cropped into a 6-class image set (open, short, mousebite,
// spur, copper, pin-hole; its own trainval/test split), trained from class folders as a folder upload would be,
// for BENCH_TRAIN_SECONDS of wall time (default 600), then evaluated on the test crops.
// Ends with one line: BENCH classify top1=… f1=… train_s=… img_per_s=… epochs=…
import { mkdtempSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { logMachine, runEngine, PY } from "./engine-run.mjs";
import { execFileSync } from "node:child_process";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DATA = resolve(ROOT, "../shared/data/deeppcb");
const BUDGET_S = Number(process.env.BENCH_TRAIN_SECONDS ?? 600);
// p model at 64 px (crops are ~50 px), batch 64: the network is tiny and per-step overhead dominates on 2 cores.
const PARAMS = (process.env.BENCH_PARAMS ?? "model=p imgsz=64 batch=64 epochs=30 scheduler=cosine warmup_epochs=0.5 close_mosaic=0 degrees=180 flipud=0.5 hsv_h=0 hsv_s=0 cache=true patience=0").split(/\s+/);

if (!existsSync(join(DATA, "coco_trainval.json"))) {
  console.log(`classify: skipped, dataset folder ${DATA} is absent`);
  process.exit(0);
}
logMachine();
const work = mkdtempSync(join(tmpdir(), "loupe-bench-classify-"));
const crops = join(work, "crops");
const counts = JSON.parse(execFileSync(PY, [join(ROOT, "bench/classify-data.py"), DATA, crops], { encoding: "utf8" }));
console.log(`DeepPCB defect crops: ${counts.train} train, ${counts.val} val (test split)`);
const out = join(work, "run");
const t0 = Date.now();
const summary = await runEngine(["train", "--task", "classify", "--data", crops, "--out", out,
  "--max-seconds", String(BUDGET_S), ...PARAMS.flatMap((p) => ["--set", p])]);
const wall = (Date.now() - t0) / 1000;
const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8")).metrics;
console.log(`test split: top-1 ${summary.top1.toFixed(4)}  P ${summary.precision.toFixed(3)} R ${summary.recall.toFixed(3)} F1 ${summary.f1.toFixed(3)}`);
for (const [name, v] of Object.entries(res.per_class)) console.log(`  ${name.padStart(10)}  P ${v.precision.toFixed(3)}  R ${v.recall.toFixed(3)}  n=${v.images}`);
console.log(`confusion (rows predicted, columns true): ${JSON.stringify(res.confusion_matrix)}`);
console.log(`training: ${summary.total_epochs} epochs in ${summary.train_time_s.toFixed(0)} s (${summary.train_img_per_s.toFixed(1)} img/s), wall ${wall.toFixed(0)} s; inference ${summary.inference_ms.toFixed(2)} ms/image`);
console.log(`BENCH classify top1=${summary.top1.toFixed(4)} f1=${summary.f1.toFixed(4)} train_s=${summary.train_time_s.toFixed(0)} img_per_s=${summary.train_img_per_s.toFixed(1)} epochs=${summary.total_epochs}`);
