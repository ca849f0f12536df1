// What the benchmarks that upload real data share: the seeded draw of their images (bench/detect-few.mjs,
// bench/agent.mjs), so every run and every machine draws the same sample, and the annotation ZIPs they send
// (bench/imports.mjs, bench/agent-api.mjs).
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./bench-server.mjs";

const yazl = createRequire(join(ROOT, "apps/server/package.json"))("yazl");

/** A copy of `items` shuffled (Fisher–Yates) by a mulberry32 stream from `seed`. */
export function shuffled(items, seed) {
  let s = seed >>> 0;
  const random = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A ZIP of in-memory entries ({ path, data }); images are stored, not compressed again. */
export function zipOf(entries) {
  return new Promise((resolve, reject) => {
    const z = new yazl.ZipFile();
    for (const e of entries) z.addBuffer(Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data), e.path, { compress: !/\.(jpe?g|png)$/i.test(e.path) });
    z.end();
    const chunks = [];
    z.outputStream.on("data", (c) => chunks.push(c));
    z.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    z.outputStream.on("error", reject);
  });
}
