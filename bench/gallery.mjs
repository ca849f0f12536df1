// Gallery benchmark: 100,000 image rows in one project (inserted through the repository layer into a temp
// SQLite database), then the list API over real HTTP with every filter and several pages -> p95 latency
// (target <= 50 ms); then 1,000 real 640x480 JPEGs drawn here pushed through the upload API over real HTTP,
// thumbnails included -> images per second (target >= 100).
// Ends with one line: BENCH gallery list_p95_ms=... ingest_img_per_s=...
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { benchServer, prepare, repositories, seedUser, startServer, stopServer } from "./bench-server.mjs";
import { drawJpegs, percentile, serverCpuMs, summarise } from "./gallery-helpers.mjs";

const ROWS = Number(process.env.BENCH_GALLERY_ROWS ?? 100_000);
const UPLOADS = Number(process.env.BENCH_GALLERY_UPLOADS ?? 1000);
const PER_REQUEST = Number(process.env.BENCH_GALLERY_PER_REQUEST ?? 20);
const PARALLEL = Number(process.env.BENCH_GALLERY_PARALLEL ?? 4);
const PORT = Number(process.env.BENCH_GALLERY_PORT ?? 18110);

const cpu = prepare();
const { openDatabase, modelsRepo, labelsRepo, imagesRepo } = await repositories();
const { dataDir, env, config, base } = await benchServer("gallery", PORT);
let server = null;
try {
  // --- 100k rows through the repository layer, before the server starts ---
  const database = await openDatabase(config);
  const db = database.db;
  const now = Date.now();
  const { userId, token } = await seedUser(db, config);
  const modelId = await modelsRepo(db).insert({
    owner_id: userId, name: "hundred thousand", name_key: "hundred thousand", note: "", code: `detection-${randomBytes(6).toString("hex")}`,
    type: "DETECTION", project_status: "no", training_status: "notTrained", test_status: "notTested", train_id: null, created_at: now, updated_at: now,
  });
  const big = { id: modelId };
  const labels = [];
  for (const name of ["scratch", "dent", "crack"]) labels.push({ id: await labelsRepo(db).insert(db, { model_id: modelId, name, name_key: name, color: "#ff0000", created_at: now }) });
  let t0 = performance.now();
  const splits = ["train", "train", "train", "valid", "test", "none"];
  const tests = ["untested", "untested", "unprocessed", "tested"];
  const images = imagesRepo(db);
  await db.transaction().execute(async (trx) => {
    const batch = [];
    for (let i = 0; i < ROWS; i++) {
      const test = tests[i % 4];
      const hits = test === "tested" && i % 8 === 3 ? 1 : 0;
      const labeled = i % 5 < 2 ? 1 : 0;
      const name = `line3_cam${i % 4}_${String(i).padStart(6, "0")}.jpg`;
      batch.push({
        model_id: modelId, name, name_key: name, kind: "jpeg", width: 640, height: 480, bytes: 48_000 + (i % 1000),
        sha256: randomBytes(32).toString("hex"), thumb_sha: randomBytes(32).toString("hex"),
        split: splits[i % splits.length], starred: i % 10 === 0 ? 1 : 0, annotation_count: labeled ? 2 : 0, labeled,
        class_label_id: null, test_state: test, test_hits: hits, test_result_count: test === "tested" ? hits * 3 : null, created_at: now + i,
      });
      if (batch.length === 2000) await images.insertMany(batch.splice(0), trx);
    }
    if (batch.length) await images.insertMany(batch, trx);
  });
  // Every fifth image carries the first label through a current annotation row (for the label filter).
  const firstId = (await db.selectFrom("images").select("id").where("model_id", "=", modelId).orderBy("id").limit(1).executeTakeFirst()).id;
  await db.transaction().execute(async (trx) => {
    const rows = [];
    for (let i = 0; i < ROWS; i += 5) rows.push({ image_id: firstId + i, model_id: modelId, label_id: labels[0].id, version: 1, current: 1, geometry: '{"kind":"box","x1":1,"y1":1,"x2":9,"y2":9}', created_at: now });
    for (let i = 0; i < rows.length; i += 2000) await trx.insertInto("annotations").values(rows.slice(i, i + 2000)).execute();
  });
  console.log(`inserted ${ROWS} image rows (+${Math.ceil(ROWS / 5)} annotations) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await database.close();

  // --- the server in its own process, as in production ---
  server = await startServer(env, base);
  const headers = { "x-token": token, "content-type": "application/json" };
  const api = async (method, url, body) => {
    const res = await fetch(base + url, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const json = await res.json();
    if (json.code !== 0) throw new Error(`${method} ${url}: ${json.message}`);
    return json.data;
  };

  // --- list API ---
  const mid = (await api("GET", `/api/models/${big.id}/images?pageSize=1`)).items[0].id - Math.floor(ROWS / 2);
  const queries = [
    "", "?filter=labeled", "?filter=unlabeled", "?filter=starred", "?filter=unstarred", "?filter=tested", "?filter=untested",
    "?filter=unprocessed", "?filter=testedWithResults", "?filter=testedNoResults", "?split=train", "?split=valid&filter=labeled",
    "?split=test&filter=starred", `?after=${mid}`, `?filter=labeled&after=${mid}`, "?page=200", "?pageSize=200", "?name=cam2_0999",
    `?labelId=${labels[0].id}`,
  ];
  const perQuery = [];
  const all = [];
  for (const q of queries) await fetch(`${base}/api/models/${big.id}/images${q}`, { headers }); // warm
  for (const q of queries) {
    const times = [];
    for (let r = 0; r < 15; r++) {
      const s = performance.now();
      const res = await fetch(`${base}/api/models/${big.id}/images${q}${q ? "&" : "?"}pageSize=${q.includes("pageSize") ? 200 : 50}`.replace("?pageSize=200&pageSize=200", "?pageSize=200"), { headers });
      const json = await res.json();
      if (json.code !== 0) throw new Error(json.message);
      times.push(performance.now() - s);
    }
    perQuery.push([q || "(all)", percentile(times, 50), percentile(times, 95)]);
    all.push(...times);
  }
  console.log("list API (ms, over HTTP, 15 runs each):");
  for (const [q, p50, p95] of perQuery) console.log(`  ${q.padEnd(40)} p50 ${p50.toFixed(1).padStart(6)}  p95 ${p95.toFixed(1).padStart(6)}`);
  const listP95 = percentile(all, 95);
  console.log(`list API overall: ${all.length} requests, p50 ${percentile(all, 50).toFixed(1)} ms, p95 ${listP95.toFixed(1)} ms (target <= 50)`);

  // --- ingest over real HTTP ---
  t0 = performance.now();
  const jpegs = await drawJpegs(UPLOADS, 640, 480);
  const mb = jpegs.reduce((n, b) => n + b.length, 0) / 2 ** 20;
  console.log(`drew ${UPLOADS} JPEGs 640x480 (${mb.toFixed(1)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const target = await api("POST", "/api/models", { name: "ingest", type: "DETECTION" });
  const batches = [];
  for (let i = 0; i < jpegs.length; i += PER_REQUEST) batches.push(jpegs.slice(i, i + PER_REQUEST).map((b, j) => [`frame_${i + j}.jpg`, b]));
  let accepted = 0;
  let next = 0;
  const cpu0 = serverCpuMs(server.pid);
  t0 = performance.now();
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const form = new FormData();
      for (const [name, buf] of batch) form.append("files", new Blob([buf], { type: "image/jpeg" }), name);
      const res = await fetch(`${base}/api/models/${target.id}/images/upload`, { method: "POST", headers: { "x-token": token }, body: form });
      const json = await res.json();
      if (json.code !== 0) throw new Error(json.message);
      accepted += json.data.accepted;
    }
  }));
  const ingestS = (performance.now() - t0) / 1000;
  const cpuMs = serverCpuMs(server.pid) - cpu0;
  const perS = accepted / ingestS;
  const thumb = await fetch(`${base}/api/models/${target.id}/images?pageSize=1`, { headers }).then((r) => r.json());
  const t = await fetch(`${base}${thumb.data.items[0].thumbnailUrl}`, { headers });
  console.log(`ingest: ${accepted}/${UPLOADS} accepted in ${ingestS.toFixed(2)} s over HTTP (${PER_REQUEST} per request, ${PARALLEL} in parallel), thumbnail ${t.headers.get("content-type")} ${(await t.arrayBuffer()).byteLength} B`);
  console.log(`ingest: ${perS.toFixed(1)} images/s, ${(mb / ingestS).toFixed(1)} MB/s (target >= 100 images/s)`);
  if (cpuMs >= 0) {
    console.log(`ingest: server used ${(cpuMs / 1000).toFixed(1)} CPU s = ${(cpuMs / accepted).toFixed(1)} CPU ms per image (${(cpuMs / 1000 / ingestS).toFixed(2)} of ${cpu.length} cores); load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  }
  summarise(listP95, perS);
} finally {
  await stopServer(server, dataDir);
}
