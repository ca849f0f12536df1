// A throw-away PostgreSQL cluster for the benchmarks, as scripts/with-postgres.sh makes one for the tests: Debian's
// newest postgresql, initdb in a temp folder (as user postgres when we are root, since postgres refuses to run as
// root), a free port, trust authentication on 127.0.0.1. Durability is switched off (fsync, full_page_writes,
// synchronous_commit): the list benchmarks read, and the seed should not wait on a disk; the caller prints so.
import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PG_SETTINGS = ["fsync=off", "full_page_writes=off", "synchronous_commit=off"];

/** A port nobody listens on now (the kernel's choice). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function pgBin() {
  const versions = (() => {
    try {
      return readdirSync("/usr/lib/postgresql").sort((a, b) => Number(a) - Number(b));
    } catch {
      return [];
    }
  })();
  if (!versions.length) throw new Error("PostgreSQL is not installed (/usr/lib/postgresql/*/bin; run scripts/bootstrap.sh test)");
  return { bin: `/usr/lib/postgresql/${versions.at(-1)}/bin`, version: versions.at(-1) };
}

/**
 * Starts a cluster with one database; returns its URL, the postmaster's pid (for CPU figures) and stop().
 * The folder is removed on stop, and on a crash of this process the cluster is stopped by stop() in a finally.
 */
export async function startPostgres(port) {
  const { bin, version } = pgBin();
  port ??= await freePort();
  const dir = mkdtempSync(join(tmpdir(), "loupe-bench-pg-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd, args) => execFileSync(asRoot ? "runuser" : join(bin, cmd), asRoot ? ["-u", "postgres", "--", join(bin, cmd), ...args] : args, { stdio: ["ignore", "ignore", "pipe"] });
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-U", "loupe", "--auth=trust", "-E", "UTF8"]);
  const opts = ["-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", ...PG_SETTINGS.flatMap((s) => ["-c", s])].join(" ");
  run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-o", opts, "start"]);
  const stop = () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    } catch {
      // Already down: the folder goes all the same.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "loupe", "loupe_bench"]);
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    return { url: `postgres://loupe@127.0.0.1:${port}/loupe_bench`, port, pid, version, settings: PG_SETTINGS, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

/**
 * CPU ms of the whole cluster: the postmaster, its live backends, and (cutime/cstime) every backend it has reaped,
 * so that a difference of two readings holds backends that ended in between.
 */
export function clusterCpuMs(postmasterPid) {
  const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  try {
    const f = stat(postmasterPid);
    let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const c = stat(entry);
        if (Number(c[1]) === postmasterPid) ticks += Number(c[11]) + Number(c[12]);
      } catch {
        // The process ended while we read the table.
      }
    }
    return (ticks * 1000) / 100;
  } catch {
    return -1;
  }
}
