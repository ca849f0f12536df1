// What the server benchmarks share (bench/api.mjs, bench/gallery.mjs): the machine line, a build of the server,
// its modules from apps/server/dist, a fresh DATA_DIR (SQLite there, or the PostgreSQL at databaseUrl) with the
// rate limit lifted, one signed-in user seeded through the repositories, and the server started in its own
// process as in production.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Prints the machine, builds contracts and server (unless BENCH_SKIP_BUILD=1); returns the CPU list. */
export function prepare() {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? "cpu"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}, ${process.platform}`);
  if (process.env.BENCH_SKIP_BUILD !== "1") {
    console.log("building contracts and server ...");
    execFileSync("npm", ["run", "build", "-w", "packages/contracts", "-w", "apps/server"], { cwd: ROOT, stdio: "ignore" });
  }
  return cpu;
}

/** A module of the built server. */
export const dist = (p) => import(pathToFileURL(join(ROOT, "apps/server/dist", p)).href);

/** The built server's database opener and the repositories the benchmarks seed through. */
export async function repositories() {
  const [{ openDatabase }, { modelsRepo }, { labelsRepo }, { imagesRepo }] = await Promise.all(
    ["db/database.js", "db/models.js", "db/labels.js", "db/images.js"].map(dist),
  );
  return { openDatabase, modelsRepo, labelsRepo, imagesRepo };
}

/** A fresh DATA_DIR and the server's environment and configuration: SQLite unless databaseUrl, rate limit lifted. */
export async function benchServer(name, port, { databaseUrl = null } = {}) {
  const { loadConfig } = await dist("config.js");
  const dataDir = mkdtempSync(join(tmpdir(), `loupe-bench-${name}-`));
  const env = {
    ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl ?? "",
    // This measures the server, not its limiter (which answers 429 past 1,200 a minute).
    RATE_LIMIT_MAX: "1000000", LOUPE_ADMIN_EMAIL: "admin@bench.test", LOUPE_ADMIN_PASSWORD: "Bench12345",
  };
  return { dataDir, env, config: { ...loadConfig(env), databaseUrl }, base: `http://127.0.0.1:${port}` };
}

/** An approved user inserted through the repository, and a session token for it. */
export async function seedUser(db, config) {
  const { usersRepo } = await dist("db/users.js");
  const { startSession } = await dist("services/sessions.js");
  const now = Date.now();
  const users = usersRepo(db);
  const userId = await users.insert({
    email: "bench@factory.test", password_hash: null, first_name: "Bench", last_name: "Mark", company: "Loupe", company_id: "",
    phone: null, landline: "", country: "DE", job_title: "", role: "0", status: "approved", language: "en",
    training_priority: 0, download_permission: 0, oidc_subject: null, created_at: now, activated_at: now, updated_at: now,
  });
  return { userId, token: await startSession({ db, now: Date.now, config }, await users.findById(userId)) };
}

/** The built server in its own process (node flags from BENCH_SERVER_ARGS), once its health route answers. */
export async function startServer(env, base) {
  const server = spawn(process.execPath, [...(process.env.BENCH_SERVER_ARGS ?? "").split(" ").filter(Boolean), join(ROOT, "apps/server/dist/main.js")], { env, stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return server;
    } catch {
      if (i > 200) throw new Error("server did not start");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Stops the server and removes the data folder (kept with BENCH_KEEP_DATA=1). */
export async function stopServer(server, dataDir) {
  server?.kill("SIGTERM");
  if (server) await new Promise((r) => server.once("exit", r));
  if (process.env.BENCH_KEEP_DATA === "1") console.log(`kept ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
}
