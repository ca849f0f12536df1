// Run the engine as the platform's runner does (JSON lines on stdout, logs passed through) and resolve with the
// `done` summary; the machine line and the generated parts set. Shared by the classify, segment, obb, measure and
// OCR benchmarks.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const PY = "/usr/bin/python3";
export const ENV = { ...process.env, PYTHONPATH: join(ROOT, "engine"), OMP_WAIT_POLICY: "PASSIVE" };

export function runEngine(args) {
  console.log(`run: ${PY} -m loupe_engine ${args.join(" ")}`);
  return new Promise((resolvePromise, reject) => {
    const p = spawn(PY, ["-m", "loupe_engine", ...args], { env: ENV, stdio: ["ignore", "pipe", "inherit"] });
    let buf = "";
    let done = null;
    p.stdout.on("data", (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const ev = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        if (ev.event === "done") done = ev.summary;
        if (ev.event === "error") console.log(`engine error: ${ev.code}: ${ev.message}`);
      }
    });
    p.on("close", (code) => (code === 0 && done ? resolvePromise(done) : reject(new Error(`engine exited ${code}`))));
  });
}

/** The machine the figures come from, first line of every benchmark's output. */
export function logMachine() {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? "cpu"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}`);
}

/**
 * bench/segment-data.py's generated parts (n images of 256x256 with polygons and rotated boxes) in a fresh work
 * folder named after the benchmark. Returns the folder, its data folder and the counts the generator printed.
 */
export function generatedParts(name, n) {
  const work = mkdtempSync(join(tmpdir(), `loupe-bench-${name}-`));
  const data = join(work, "data");
  const made = JSON.parse(execFileSync(PY, [join(ROOT, "bench/segment-data.py"), data, "--n", String(n), "--size", "256"], { encoding: "utf8" }));
  console.log(`generated: ${made.train} train / ${made.val} val images, ${made.polygons} parts (256x256)`);
  return { work, data, made };
}
