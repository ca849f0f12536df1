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
// Only once both have ended are the test images uploaded into each model, unlabelled (bench/agent-score.mjs: the
// platform refuses to test a version after labelled data was added, and the agent's analysis reads every image):
// DeepPCB's test split (BENCH_AGENT_TEST_IMAGES, all 500) and a fixed sample of its test crops
// (BENCH_AGENT_TEST_CROPS, 600). The agent's recommended version (bestTrainingId) and the default version predict
// them in test runs with the same settings (conf BENCH_AGENT_CONF 0.001, NMS IoU 0.6), and the bench scores the
// stored predictions against the dataset's truth with one scorer for both: mAP50 (COCO's matching) and top-1. The
// scorer is checked against the engine's own mAP50 on a test of the agent's version on the (labelled) validation
// images, which the agent trained with.
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
import { shuffled } from "./sample.mjs";
import { apiClient, createModel, imageIdsByName, importCoco, runAgent, runDefaultTraining, runTest, setSplit, uploadFolders, uploadImages } from "./agent-api.mjs";
import { labelNames, mAP50, runImages, top1, truthOf } from "./agent-score.mjs";
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
const SETTINGS = { conf: Number(process.env.BENCH_AGENT_CONF ?? 0.001), iou: 0.6 };
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

/**
 * Uploads the test images, unlabelled (bench/agent-score.mjs says why), into each side's model only now that both
 * trained, tests each side's version on them with the same settings and scores the run's predictions with
 * `measure(items, ids, names)` → { value, detail }; 0 for a side without a version.
 */
async function score(api, models, versions, files, metric, measure) {
  const out = {};
  for (const side of ["agent", "default"]) {
    const ids = await uploadImages(api, models[side].id, files);
    console.log(`${side}: ${ids.size} of ${files.length} test images uploaded unlabelled after training`);
    if (versions[side] === null) {
      console.log(`${side}: no version to test, scored 0`);
      out[side] = 0;
      continue;
    }
    const t = await runTest(api, models[side].id, versions[side], [...ids.values()], SETTINGS);
    const r = measure(await runImages(api, models[side].id, t.id), ids, await labelNames(api, models[side].id));
    out[side] = r.value;
    console.log(`${side}: test run ${t.id} of ${t.version} on ${t.imageCount} images (conf ${SETTINGS.conf}, iou ${SETTINGS.iou}, ${t.wallS.toFixed(0)} s): ${metric} ${r.value.toFixed(4)}${r.detail}`);
  }
  return out;
}

/** The bench's scorer against the engine's mAP50 on one labelled test run: they must read the same. */
async function checkScorer(api, modelId, trainingId, names) {
  const byName = await imageIdsByName(api, modelId);
  const t = await runTest(api, modelId, trainingId, names.map((n) => byName.get(n)), SETTINGS);
  const [items, labels] = [await runImages(api, modelId, t.id), await labelNames(api, modelId)];
  const mine = mAP50(items, truthOf(items, labels), labels).mAP50;
  console.log(`scorer check on the ${t.imageCount} validation images (test run ${t.id}): the engine's mAP50 ${Number(t.summary?.mAP50).toFixed(4)}, the bench's ${mine.toFixed(4)}`);
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
  if (versions.agentVersion !== null) await checkScorer(api, models.agent.id, versions.agentVersion, split.valid);
  const truth = new Map(tests.map((im) => [im.file_name, []]));
  const cls = new Map(testCoco.categories.map((c) => [c.id, c.name]));
  const byImage = new Map(tests.map((im) => [im.id, im.file_name]));
  for (const a of testCoco.annotations) {
    const [x, y, w, h] = a.bbox;
    if (byImage.has(a.image_id)) truth.get(byImage.get(a.image_id)).push({ cls: cls.get(a.category_id), x1: x, y1: y, x2: x + w, y2: y + h });
  }
  const files = tests.map((im) => ({ name: im.file_name, data: read(im.file_name) }));
  return score(api, models, { agent: versions.agentVersion, default: versions.defaultVersion }, files, "mAP50", (items, ids, names) => {
    const m = mAP50(items, new Map([...truth].filter(([name]) => ids.has(name))), names);
    return { value: m.mAP50, detail: ` (AP50 ${Object.entries(m.perClass).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(", ")})` };
  });
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

async function uploadCrops(api, modelId, crops) {
  const files = crops.map((c) => ({ name: `${c.cls}/${c.file}`, data: readFileSync(c.path) }));
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
      const train = await uploadCrops(api, m.id, split.train);
      const valid = await uploadCrops(api, m.id, split.valid);
      const byName = await imageIdsByName(api, m.id);
      const named = (names) => names.map((n) => n.split("/")[1]);
      const n = { train: await setSplit(api, m.id, byName, named(train.names), "train"), valid: await setSplit(api, m.id, byName, named(valid.names), "valid") };
      console.log(`classify ${side}: model ${m.id}, ${train.accepted + valid.accepted} crops of ${new Set(drawn.map((c) => c.cls)).size} classes, train ${n.train} / valid ${n.valid}`);
      models[side] = m;
    }
    const versions = await trainBoth(api, models);
    const files = tests.map((c) => ({ name: `test-${c.file}`, data: readFileSync(c.path), cls: c.cls }));
    return await score(api, models, { agent: versions.agentVersion, default: versions.defaultVersion }, files, "top1", (items, ids, names) => ({
      value: top1(items, new Map(files.map((f) => [ids.get(f.name), f.cls])), names),
      detail: "",
    }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const cpu = prepare();
console.log(`load average at start ${load()} on ${cpu.length} cores; budget ${BUDGET_S} s per run; parts ${PARTS}; seed ${SEED}`);
const { openDatabase } = await repositories();
const { dataDir, env, config, base } = await benchServer("agent", PORT);
let server = null;
// An interrupted bench takes its server with it (its graceful stop would wait for the running job).
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    server?.kill("SIGKILL");
    console.log(`interrupted; data left in ${dataDir}`);
    process.exit(130);
  });
}
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
