// Run the engine as the platform's runner does (JSON lines on stdout, logs passed through) and resolve with the
// `done` summary. Shared by the classify, segment and measure benchmarks.
import { spawn } from "node:child_process";
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
