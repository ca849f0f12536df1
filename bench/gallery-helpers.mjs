// Helpers of bench/gallery.mjs: drawing test JPEGs and the figures.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

// sharp is a dependency of apps/server; resolve it from there.
const require = createRequire(join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "apps/server/package.json"));
const sharp = require("sharp");

/** n distinct photo-like frames: a gradient, a moving part and sensor noise, JPEG quality 85. */
export async function drawJpegs(n, width, height) {
  const base = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      base[o] = (x * 255) / width;
      base[o + 1] = (y * 255) / height;
      base[o + 2] = 128;
    }
  }
  const out = [];
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < n; i++) {
    const px = Buffer.from(base);
    const cx = (i * 37) % (width - 80);
    const cy = (i * 53) % (height - 60);
    for (let y = cy; y < cy + 60; y++) for (let x = cx; x < cx + 80; x++) px.fill(40 + (i % 200), (y * width + x) * 3, (y * width + x) * 3 + 3);
    for (let k = 0; k < 4000; k++) px[(rnd() << 8 | rnd()) % px.length] = rnd();
    out.push(await sharp(px, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer());
  }
  return out;
}

/** User + system CPU time of a process in ms (Linux /proc); -1 elsewhere. */
export function serverCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return -1;
  }
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

export function summarise(listP95, ingestPerS) {
  const ok = listP95 <= 50 && ingestPerS >= 100;
  console.log(`targets: list p95 <= 50 ms ${listP95 <= 50 ? "met" : "MISSED"}, ingest >= 100 img/s ${ingestPerS >= 100 ? "met" : "MISSED"}${ok ? "" : " (see above)"}`);
  console.log(`BENCH gallery list_p95_ms=${listP95.toFixed(1)} ingest_img_per_s=${ingestPerS.toFixed(1)}`);
}
