// List API throughput: the built server (apps/server/dist/main.js) on SQLite in a fresh DATA_DIR with the rate
// limit lifted through its configuration, one signed-in user with 20 models, one of which holds 1,060 images
// (rows through the repository layer, as bench/gallery.mjs does). autocannon then drives the model list and the
// gallery list (first page, default page size) for 30 s each at 50 and at 200 connections over real HTTP.
// The health route (no session, no database) runs beside them as this machine's floor, outside the verdict.
// Target: 0 errors and p99 < 100 ms at 200 connections. Ends with one line, the figures at 200 connections of
// the worst route: BENCH api rps=... p99_ms=... errors=...
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { benchServer, prepare, repositories, seedUser, startServer, stopServer } from "./bench-server.mjs";
import autocannon from "autocannon";
import { serverCpuMs } from "./gallery-helpers.mjs";

const DURATION_S = Number(process.env.BENCH_API_DURATION ?? 30);
const CONNECTIONS = (process.env.BENCH_API_CONNECTIONS ?? "50,200").split(",").map(Number);
const MODELS = 20;
const IMAGES = 1060;
const PORT = Number(process.env.BENCH_API_PORT ?? 18120);

const cpu = prepare();
const { openDatabase, modelsRepo, labelsRepo, imagesRepo } = await repositories();
const { dataDir, env, config, base } = await benchServer("api", PORT);
let server = null;
try {
  // --- one user, 20 models, 1,060 images in the first, a few in each of the others ---
  const database = await openDatabase(config);
  const db = database.db;
  const now = Date.now();
  const { userId, token } = await seedUser(db, config);
  const models = modelsRepo(db);
  const images = imagesRepo(db);
  const types = ["DETECTION", "SEGMENTATION", "classification", "DETECTION", "MEASURE"];
  const modelIds = [];
  for (let m = 0; m < MODELS; m++) {
    const name = `line ${m + 1} inspection`;
    const type = types[m % types.length];
    const id = await models.insert({
      owner_id: userId, name, name_key: name, note: m % 3 ? "" : "camera above the belt", code: `bench-${randomBytes(6).toString("hex")}`,
      type, project_status: "no", training_status: "notTrained", test_status: "notTested", train_id: null, created_at: now + m, updated_at: now + m,
    });
    modelIds.push(id);
    const labels = [];
    for (const label of ["scratch", "dent", "crack"]) labels.push(await labelsRepo(db).insert(db, { model_id: id, name: label, name_key: label, color: "#ff0000", created_at: now }));
    const count = m === 0 ? IMAGES : 10 + m * 3;
    const rows = [];
    for (let i = 0; i < count; i++) {
      const labeled = i % 5 < 2 ? 1 : 0;
      const file = `cam${i % 4}_${String(i).padStart(5, "0")}.jpg`;
      rows.push({
        model_id: id, name: file, name_key: file, kind: "jpeg", width: 640, height: 480, bytes: 48_000 + i,
        sha256: randomBytes(32).toString("hex"), thumb_sha: randomBytes(32).toString("hex"), split: ["train", "train", "valid", "test", "none"][i % 5],
        starred: i % 10 === 0 ? 1 : 0, annotation_count: labeled && type !== "classification" ? 2 : 0, labeled,
        class_label_id: labeled && type === "classification" ? labels[i % 3] : null, test_state: "untested", test_hits: 0, test_result_count: null, created_at: now + i,
      });
    }
    await db.transaction().execute((trx) => images.insertMany(rows, trx));
  }
  const big = modelIds[0];
  console.log(`seeded ${MODELS} models, ${IMAGES} images in model ${big}`);
  await database.close();

  // --- the server in its own process, as in production ---
  server = await startServer(env, base);
  const headers = { "x-token": token };
  const routes = [
    { name: "model list", path: "/api/models", check: (d) => d.total === MODELS && d.items.length === MODELS && d.items.some((m) => m.totalImages === IMAGES) },
    { name: "gallery list", path: `/api/models/${big}/images`, check: (d) => d.total === IMAGES && d.items.length === 50 },
  ];
  // Each answer is checked once before the load, so a broken route cannot pass as a fast one.
  for (const r of routes) {
    const json = await (await fetch(base + r.path, { headers })).json();
    if (json.code !== 0 || !r.check(json.data)) throw new Error(`${r.path}: unexpected answer ${JSON.stringify(json).slice(0, 300)}`);
    console.log(`${r.name}: ${r.path} answers ${JSON.stringify(json).length} bytes`);
  }

  // The floor of this machine: the same server's health route (no session, no database), for comparison only.
  routes.push({ name: "health (ref)", path: "/api/health", reference: true, check: () => true });
  const results = [];
  for (const connections of CONNECTIONS) {
    for (const r of routes) {
      // A short warm-up (JIT, page cache), then the measured run.
      await autocannon({ url: base + r.path, headers, connections, duration: 2 });
      const cpu0 = serverCpuMs(server.pid);
      const res = await autocannon({ url: base + r.path, headers, connections, duration: r.reference ? Math.min(10, DURATION_S) : DURATION_S, timeout: 10 });
      const cpuMs = serverCpuMs(server.pid) - cpu0;
      // autocannon counts a timeout among its errors as well: errors + non-2xx is every failed request once.
      const errors = res.errors + res.non2xx;
      const row = { route: r.name, reference: r.reference === true, connections, rps: res.requests.average, p50: res.latency.p50, p99: res.latency.p99, max: res.latency.max, errors, total: res.requests.total, cpuMs };
      results.push(row);
      console.log(
        `${r.name.padEnd(13)} c=${String(connections).padStart(3)}: ${row.rps.toFixed(0).padStart(5)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, max ${row.max} ms, ` +
          `${row.total} requests, errors ${errors} (of which timeouts ${res.timeouts}, non-2xx ${res.non2xx})` +
          (cpuMs >= 0 ? `, server ${(cpuMs / row.total).toFixed(2)} CPU ms/request` : ""),
      );
    }
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${cpu.length} cores (autocannon shares them with the server)`);
  const top = Math.max(...CONNECTIONS);
  const atTop = results.filter((r) => r.connections === top && !r.reference);
  const worst = atTop.reduce((w, r) => (r.errors > w.errors || (r.errors === w.errors && r.p99 > w.p99) ? r : w));
  const met = atTop.every((r) => r.errors === 0 && r.p99 < 100);
  console.log(`target at ${top} connections: 0 errors and p99 < 100 ms on every route: ${met ? "met" : "MISSED"} (worst: ${worst.route})`);
  console.log(`BENCH api rps=${worst.rps.toFixed(0)} p99_ms=${worst.p99} errors=${worst.errors}`);
} finally {
  await stopServer(server, dataDir);
}
