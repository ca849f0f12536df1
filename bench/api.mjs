// List API throughput on each database and with two servers: the built server (apps/server/dist/main.js) in its
// own process, rate limit lifted through its configuration, one signed-in user with 20 models, one of which
// holds 10,000 images (rows through the repository layer, bench/api-seed.mjs). Three configurations:
//   sqlite     one server on SQLite in a fresh DATA_DIR (the default installation);
//   postgres   one server on a throw-away PostgreSQL cluster (bench/pg-cluster.mjs, durability off);
//   postgres2  two servers on two ports sharing that database, the load split evenly between them.
// autocannon (one instance per server, each in its own thread) drives the model list and the gallery list (first
// page, default size) for 30 s each at 500 connections in all; the health route (no session, no database) runs
// beside them as this machine's floor, outside the verdict. CPU time per request of every process (servers,
// PostgreSQL, the load generator) comes from /proc, since on a small machine they all share the same cores.
// Target (issue 34): 0 errors and p99 < 100 ms on PostgreSQL; two servers close to twice one.
// Ends with one line per configuration, the postgres instances=2 one last with scaling=<its rps / one server's>:
//   BENCH api backend=<sqlite|postgres> instances=<1|2> rps=<slower route> p99_ms=<worse route> errors=<sum>
// Knobs: BENCH_API_DURATION (s, 30), BENCH_API_CONNECTIONS (500; a list "50,500" runs each, the verdict is at
// the largest), BENCH_API_BACKENDS ("sqlite,postgres,postgres2"), BENCH_API_IMAGES (10000), BENCH_API_PORT.
import { loadavg } from "node:os";
import { benchServer, prepare, startServer, stopServer } from "./bench-server.mjs";
import { MODELS, seedApi } from "./api-seed.mjs";
import { runLoad } from "./api-load.mjs";
import { clusterCpuMs, startPostgres } from "./pg-cluster.mjs";
import { serverCpuMs } from "./gallery-helpers.mjs";

const DURATION_S = Number(process.env.BENCH_API_DURATION ?? 30);
const CONNECTIONS = (process.env.BENCH_API_CONNECTIONS ?? "500").split(",").map(Number);
const BACKENDS = (process.env.BENCH_API_BACKENDS ?? "sqlite,postgres,postgres2").split(",").map((b) => b.trim());
const IMAGES = Number(process.env.BENCH_API_IMAGES ?? 10_000);
const PORT = Number(process.env.BENCH_API_PORT ?? 18120);
const unknown = BACKENDS.filter((b) => !["sqlite", "postgres", "postgres2"].includes(b));
if (unknown.length) throw new Error(`BENCH_API_BACKENDS: unknown ${unknown.join(", ")} (known: sqlite, postgres, postgres2)`);

const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const cpu = prepare();
console.log(`load average at start ${load()} on ${cpu.length} cores (other work on this machine shares them)`);

/**
 * Checks each route's answer once on every server (a broken route must not pass as a fast one), then runs the
 * load; returns the rows. pgPid: the postmaster, for the database's share of the CPU.
 */
async function measure(label, servers, bases, token, big, pgPid) {
  const headers = { "x-token": token };
  const routes = [
    { name: "model list", path: "/api/models", check: (d) => d.total === MODELS && d.items.length === MODELS && d.items.some((m) => m.totalImages === IMAGES) },
    { name: "gallery list", path: `/api/models/${big}/images`, check: (d) => d.total === IMAGES && d.items.length === 50 },
  ];
  for (const base of bases) {
    for (const r of routes) {
      const json = await (await fetch(base + r.path, { headers })).json();
      if (json.code !== 0 || !r.check(json.data)) throw new Error(`${base}${r.path}: unexpected answer ${JSON.stringify(json).slice(0, 300)}`);
    }
  }
  routes.push({ name: "health (ref)", path: "/api/health", reference: true });
  const rows = [];
  for (const connections of CONNECTIONS) {
    for (const r of routes) {
      // A short warm-up (JIT, page cache, the pool's connections), then the measured run.
      await runLoad(bases, r.path, { headers, connections, duration: 2 });
      // The warm-up's backlog drains before the measured run: one request on each server waits behind it.
      await Promise.all(bases.map((b) => fetch(b + r.path, { headers }).then((a) => a.arrayBuffer())));
      const before = { servers: servers.map((s) => serverCpuMs(s.pid)), pg: pgPid ? clusterCpuMs(pgPid) : 0, self: selfCpuMs() };
      const duration = r.reference ? Math.min(10, DURATION_S) : DURATION_S;
      const res = await runLoad(bases, r.path, { headers, connections, duration });
      const perRequest = (ms) => (ms / Math.max(1, res.total)).toFixed(2);
      const cpuServers = servers.map((s, i) => serverCpuMs(s.pid) - before.servers[i]);
      const cpuPg = pgPid ? clusterCpuMs(pgPid) - before.pg : 0;
      const cpuSelf = selfCpuMs() - before.self;
      rows.push({ route: r.name, reference: r.reference === true, connections, ...res });
      console.log(
        `${label.padEnd(20)} ${r.name.padEnd(13)} c=${connections}: ${res.rps.toFixed(0).padStart(5)} req/s` +
          (res.each.length > 1 ? ` (${res.each.map((e) => `${e.rps.toFixed(0)} req/s p99 ${e.p99} ms`).join(" + ")})` : "") +
          `, p50 ${res.p50} ms, p99 ${res.p99} ms, max ${res.max} ms, ${res.total} requests, errors ${res.errors} (timeouts ${res.timeouts}, non-2xx ${res.non2xx})`,
      );
      const total = cpuServers.reduce((a, b) => a + b, 0) + cpuPg + cpuSelf;
      console.log(
        `${"".padEnd(20)} CPU ms/request: server${servers.length > 1 ? "s" : ""} ${cpuServers.map(perRequest).join(" + ")}` +
          (pgPid ? `, postgres ${perRequest(cpuPg)}` : "") +
          `, load generator ${perRequest(cpuSelf)}; all ${perRequest(total)} = ${(total / 1000).toFixed(1)} CPU s in ${duration} s`,
      );
    }
  }
  return rows;
}

/** The figures at the largest connection count: the slower route's rps, the worse p99, every error. */
function summary(backend, instances, rows) {
  const top = Math.max(...CONNECTIONS);
  const at = rows.filter((r) => r.connections === top && !r.reference);
  const s = { backend, instances, rps: Math.min(...at.map((r) => r.rps)), p99: Math.max(...at.map((r) => r.p99)), errors: at.reduce((n, r) => n + r.errors, 0) };
  const met = s.errors === 0 && s.p99 < 100;
  console.log(`${backend} instances=${instances} at ${top} connections: 0 errors and p99 < 100 ms on every route: ${met ? "met" : "MISSED"}`);
  return s;
}

const results = [];
const cleanups = [];
try {
  if (BACKENDS.includes("sqlite")) {
    const { dataDir, env, config, base } = await benchServer("api", PORT);
    let server = null;
    cleanups.push(() => stopServer(server, dataDir));
    const { token, big, seedMs } = await seedApi(config, IMAGES);
    console.log(`sqlite: seeded ${MODELS} models, ${IMAGES} images in model ${big} in ${(seedMs / 1000).toFixed(1)} s`);
    server = await startServer(env, base);
    results.push(summary("sqlite", 1, await measure("sqlite", [server], [base], token, big)));
    await cleanups.pop()();
  }
  if (BACKENDS.includes("postgres") || BACKENDS.includes("postgres2")) {
    const pg = await startPostgres();
    cleanups.push(async () => pg.stop());
    console.log(`postgres: PostgreSQL ${pg.version} on port ${pg.port}, ${pg.settings.join(" ")} (a bench setting: no durability, never for production)`);
    const { dataDir, env, config, base } = await benchServer("api-pg", PORT + 1, { databaseUrl: pg.url });
    const servers = [];
    cleanups.push(async () => {
      for (const s of servers.splice(0)) await stopServer(s, dataDir);
      await stopServer(null, dataDir);
    });
    const { token, big, seedMs } = await seedApi(config, IMAGES);
    console.log(`postgres: seeded ${MODELS} models, ${IMAGES} images in model ${big} in ${(seedMs / 1000).toFixed(1)} s`);
    const bases = [base, `http://127.0.0.1:${PORT + 2}`];
    // One after the other: both would seed the admin account at start-up at once.
    servers.push(await startServer(env, bases[0]));
    if (BACKENDS.includes("postgres")) results.push(summary("postgres", 1, await measure("postgres", servers, [bases[0]], token, big, pg.pid)));
    if (BACKENDS.includes("postgres2")) {
      servers.push(await startServer({ ...env, PORT: String(PORT + 2) }, bases[1]));
      results.push(summary("postgres", 2, await measure("postgres x2", servers, bases, token, big, pg.pid)));
    }
    await cleanups.pop()();
    await cleanups.pop()();
  }
} finally {
  for (const c of cleanups.reverse()) await c();
}
console.log(`load average at end ${load()} on ${cpu.length} cores`);
const one = results.find((r) => r.backend === "postgres" && r.instances === 1);
for (const r of results) {
  const scaling = r.instances === 2 && one?.rps > 0 ? ` scaling=${(r.rps / one.rps).toFixed(2)}` : "";
  console.log(`BENCH api backend=${r.backend} instances=${r.instances} rps=${r.rps.toFixed(0)} p99_ms=${r.p99} errors=${r.errors}${scaling}`);
}
