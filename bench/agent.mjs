// The AI agent against the platform's default training (issue 35 item 5), through the real server and its HTTP API
// only (bench/agent-api.mjs), the built server in its own process on a fresh DATA_DIR (SQLite):
// - detection: BENCH_AGENT_IMAGES (150) DeepPCB trainval images drawn with a fixed seed (BENCH_AGENT_SEED, the
//   seeded shuffle of bench/detect-few.mjs), uploaded with their COCO boxes through the annotation-ZIP route into
//   two detection models and split 80/20 train/valid in the drawn order (the same images in both models);
// - classification: BENCH_AGENT_CROPS (2 × images, 300) DeepPCB defect crops (bench/classify-data.py) drawn the
//   same way, uploaded as class folders into two classification models, split 80/20 per class.
// Model A runs the agent with budgetS = BENCH_AGENT_BUDGET_S (2400); then model B trains once with the platform's
// default parameters. Same wall clock for both: the server runs with TRAINING_MAX_S = the budget, the standard
// plan's training budget, so the default training's engine gets max_seconds = the budget (its schedule fits
// itself to it, as under `time`; `time` itself is in whole hours from 1, too coarse). One after the other.
// Only once both have ended are the test images uploaded into each model, split `test`: DeepPCB's test split
// (BENCH_AGENT_TEST_IMAGES, all 500) and a fixed sample of its test crops (BENCH_AGENT_TEST_CROPS, 600). The agent's
// recommended version (bestTrainingId) and the default version are then tested on them with the same settings
// (conf BENCH_AGENT_CONF 0.01, NMS IoU 0.6): mAP50 and top-1 from the test runs' summaries.
// BENCH_AGENT_PARTS=detect|classify|both (both). Ends with exactly one line:
//   BENCH agent mAP50_agent=… mAP50_default=… top1_agent=… top1_default=… budget_s=…
// (na for a part not run; 0 for a side that delivered no version). Skipped with a message when
// ../shared/data/deeppcb is absent. Target: never below the default by more than 0.01, above it by 0.02 or more on
// at least one of the two.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { benchServer, prepare, repositories, ROOT, seedUser, startServer, stopServer } from "./bench-server.mjs";
import { PY } from "./engine-run.mjs";
import { shuffled } from "./agent-draw.mjs";
import { apiClient, createModel, imageIdsByName, importCoco, runAgent, runDefaultTraining, runTest, setSplit, uploadFolders } from "./agent-api.mjs";
import { printAgent, printDefault } from "./agent-report.mjs";

const DATA = join(ROOT, "../shared/data/deeppcb");
const BUDGET_S = Number(process.env.BENCH_AGENT_BUDGET_S ?? 2400);
const PARTS = process.env.BENCH_AGENT_PARTS ?? "both";
const IMAGES = Number(process.env.BENCH_AGENT_IMAGES ?? 150);
const CROPS = Number(process.env.BENCH_AGENT_CROPS ?? 2 * IMAGES);
const TEST_IMAGES = Number(process.env.BENCH_AGENT_TEST_IMAGES ?? 500);
const TEST_CROPS = Number(process.env.BENCH_AGENT_TEST_CROPS ?? 600);
const SEED = Number(process.env.BENCH_AGENT_SEED ?? 1);
const PORT = Number(process.env.BENCH_AGENT_PORT ?? 18800);
const SETTINGS = { conf: Number(process.env.BENCH_AGENT_CONF ?? 0.01), iou: 0.6 };
const VALID_SHARE = 0.2;

if (!["detect", "classify", "both"].includes(PARTS)) throw new Error(`BENCH_AGENT_PARTS: ${PARTS} (known: detect, classify, both)`);
if (!(BUDGET_S >= 60)) throw new Error(`BENCH_AGENT_BUDGET_S: at least 60 (the agent's minimum), got ${process.env.BENCH_AGENT_BUDGET_S}`);
if (!existsSync(join(DATA, "coco_trainval.json"))) {
  console.log(`agent: skipped, dataset folder ${DATA} is absent`);
  process.exit(0);
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const fmt = (v) => (v === null ? "na" : v.toFixed(4));

/** The two sides one after the other: the agent on model A, then the default training on model B. */
async function trainBoth(api, models) {
  console.log(`agent on model ${models.agent.id}, budget ${BUDGET_S} s ...`);
  const agent = await runAgent(api, models.agent.id, BUDGET_S);
  await printAgent(api, models.agent.id, agent);
  console.log(`default training on model ${models.default.id}, the same ${BUDGET_S} s ...`);
  const def = await runDefaultTraining(api, models.default.id, BUDGET_S);
  printDefault(def);
  return { agentVersion: agent.run.bestTrainingId, defaultVersion: def.training.status === "succeeded" ? def.training.id : null };
}

/** Tests each side's version on the model's test split; the metric from the summary, 0 for a side without a version. */
async function score(api, models, versions, metric) {
  const out = {};
  for (const side of ["agent", "default"]) {
    if (versions[side] === null) {
      console.log(`${side}: no version to test, scored 0`);
      out[side] = 0;
      continue;
    }
    const t = await runTest(api, models[side].id, versions[side], SETTINGS);
    out[side] = Number(t.summary?.[metric] ?? 0);
    console.log(`${side}: test run ${t.id} of ${t.version} on ${t.imageCount} images (conf ${SETTINGS.conf}, iou ${SETTINGS.iou}): ${metric} ${out[side].toFixed(4)}, in ${t.wallS.toFixed(0)} s`);
  }
  return out;
}

const subset = (coco, images) => {
  const ids = new Set(images.map((i) => i.id));
  return { images, annotations: coco.annotations.filter((a) => ids.has(a.image_id)), categories: coco.categories };
};

async function detectPart(api) {
  const trainval = JSON.parse(readFileSync(join(DATA, "coco_trainval.json"), "utf8"));
  const testCoco = JSON.parse(readFileSync(join(DATA, "coco_test.json"), "utf8"));
  const drawn = shuffled([...trainval.images].sort((a, b) => a.id - b.id), SEED).slice(0, IMAGES);
  const nValid = Math.max(1, Math.round(IMAGES * VALID_SHARE));
  const split = { train: drawn.slice(0, IMAGES - nValid).map((i) => i.file_name), valid: drawn.slice(IMAGES - nValid).map((i) => i.file_name) };
  const tests = shuffled([...testCoco.images].sort((a, b) => a.id - b.id), SEED).slice(0, TEST_IMAGES);
  const read = (f) => readFileSync(join(DATA, "images", f));
  const models = {};
  for (const side of ["agent", "default"]) {
    const m = await createModel(api, `PCB detect ${side}`, "DETECTION");
    const r = await importCoco(api, m.id, subset(trainval, drawn), read);
    const byName = await imageIdsByName(api, m.id);
    const n = { train: await setSplit(api, m.id, byName, split.train, "train"), valid: await setSplit(api, m.id, byName, split.valid, "valid") };
    console.log(`detect ${side}: model ${m.id}, ${r.imagesAdded} images, ${r.annotations} boxes (${r.skipped} skipped, ${r.refused} refused), train ${n.train} / valid ${n.valid}`);
    models[side] = m;
  }
  const versions = await trainBoth(api, models);
  // Only now: neither side saw a test image while it trained.
  for (const side of ["agent", "default"]) {
    const r = await importCoco(api, models[side].id, subset(testCoco, tests), read);
    const n = await setSplit(api, models[side].id, await imageIdsByName(api, models[side].id), tests.map((i) => i.file_name), "test");
    console.log(`detect ${side}: ${n} test images with ${r.annotations} boxes added after training, split test`);
  }
  return score(api, models, { agent: versions.agentVersion, default: versions.defaultVersion }, "mAP50");
}

/** The crops as [{ cls, file }] of one split folder, in a stable order. */
const cropList = (dir) =>
  readdirSync(dir)
    .sort()
    .flatMap((cls) => readdirSync(join(dir, cls)).sort().map((file) => ({ cls, file, path: join(dir, cls, file) })));

/** 80/20 per class in the drawn order, so every class has training and validation images (the §5 rule). */
function splitPerClass(drawn) {
  const byClass = new Map();
  for (const c of drawn) byClass.set(c.cls, [...(byClass.get(c.cls) ?? []), c]);
  const valid = new Set();
  for (const list of byClass.values()) for (const c of list.slice(0, Math.max(1, Math.round(list.length * VALID_SHARE)))) valid.add(c);
  return { train: drawn.filter((c) => !valid.has(c)), valid: drawn.filter((c) => valid.has(c)) };
}

async function uploadCrops(api, modelId, crops, prefix) {
  const files = crops.map((c) => ({ name: `${c.cls}/${prefix}${c.file}`, data: readFileSync(c.path) }));
  const r = await uploadFolders(api, modelId, files);
  if (r.refused) console.log(`  refused: ${[...r.reasons].map(([m, n]) => `${n} × ${m}`).join("; ")}`);
  return { ...r, names: files.map((f) => f.name) };
}

async function classifyPart(api) {
  const work = mkdtempSync(join(tmpdir(), "loupe-bench-agent-crops-"));
  try {
    const counts = JSON.parse(execFileSync(PY, [join(ROOT, "bench/classify-data.py"), DATA, work], { encoding: "utf8" }));
    console.log(`DeepPCB defect crops: ${counts.train} trainval, ${counts.val} test`);
    const drawn = shuffled(cropList(join(work, "train")), SEED).slice(0, CROPS);
    const split = splitPerClass(drawn);
    const tests = shuffled(cropList(join(work, "val")), SEED).slice(0, TEST_CROPS);
    const models = {};
    for (const side of ["agent", "default"]) {
      const m = await createModel(api, `PCB classify ${side}`, "classification");
      const train = await uploadCrops(api, m.id, split.train, "");
      const valid = await uploadCrops(api, m.id, split.valid, "");
      const byName = await imageIdsByName(api, m.id);
      const named = (names) => names.map((n) => n.split("/")[1]);
      const n = { train: await setSplit(api, m.id, byName, named(train.names), "train"), valid: await setSplit(api, m.id, byName, named(valid.names), "valid") };
      console.log(`classify ${side}: model ${m.id}, ${train.accepted + valid.accepted} crops of ${new Set(drawn.map((c) => c.cls)).size} classes, train ${n.train} / valid ${n.valid}`);
      models[side] = m;
    }
    const versions = await trainBoth(api, models);
    for (const side of ["agent", "default"]) {
      const up = await uploadCrops(api, models[side].id, tests, "test-");
      const n = await setSplit(api, models[side].id, await imageIdsByName(api, models[side].id), up.names.map((x) => x.split("/")[1]), "test");
      console.log(`classify ${side}: ${n} test crops added after training, split test`);
    }
    return await score(api, models, { agent: versions.agentVersion, default: versions.defaultVersion }, "top1");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const cpu = prepare();
console.log(`load average at start ${load()} on ${cpu.length} cores; budget ${BUDGET_S} s per run; parts ${PARTS}; seed ${SEED}`);
const { openDatabase } = await repositories();
const { dataDir, env, config, base } = await benchServer("agent", PORT);
let server = null;
const result = { detect: { agent: null, default: null }, classify: { agent: null, default: null } };
try {
  const database = await openDatabase(config);
  const { token } = await seedUser(database.db, config);
  await database.close();
  // The standard plan's budget is the agent's: the default training gets exactly these seconds (see the top).
  server = await startServer({ ...env, TRAINING_MAX_S: String(BUDGET_S) }, base);
  const api = apiClient(base, token);
  for (const [part, run] of [["detect", detectPart], ["classify", classifyPart]]) {
    if (PARTS !== "both" && PARTS !== part) continue;
    const t0 = Date.now();
    console.log(`--- ${part} ---`);
    result[part] = await run(api);
    console.log(`${part}: ${((Date.now() - t0) / 1000).toFixed(0)} s in all; load average ${load()}`);
  }
} finally {
  await stopServer(server, dataDir);
}
console.log(
  `BENCH agent mAP50_agent=${fmt(result.detect.agent)} mAP50_default=${fmt(result.detect.default)} top1_agent=${fmt(result.classify.agent)} top1_default=${fmt(result.classify.default)} budget_s=${BUDGET_S}`,
);
