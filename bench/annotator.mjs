// Labeling studio benchmark (issue 5): two 2048x1536 images, each carrying 2,000 polygons of 20 vertices, opened
// in the real /mark/segmentation page of the built app in headless Chromium (software raster, --disable-gpu).
// - open_ms: from a click on "next image" to the new image drawn with all 2,000 shapes (target < 500 ms);
// - fps while panning (middle-button drag) and zooming (wheel around the cursor), from requestAnimationFrame
//   intervals: p50 and p5 (the slowest 5 % of frames) (target >= 50).
// The page prefetches the next image while the current one is open; BENCH_ANNOTATOR_PREFETCH=off measures a
// cold switch. The open prints the page's performance marks (loupe:*) as a breakdown.
// Ends with one line: BENCH annotator open_ms=... fps_p50=... fps_p5=...
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { chromium } from "playwright";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PORT = Number(process.env.BENCH_ANNOTATOR_PORT ?? 18120);
const SHAPES = Number(process.env.BENCH_ANNOTATOR_SHAPES ?? 2000);
const VERTICES = Number(process.env.BENCH_ANNOTATOR_VERTICES ?? 20);
const SECONDS = Number(process.env.BENCH_ANNOTATOR_SECONDS ?? 3);
// off: the page does not prefetch the next image (a cold switch: its annotations and image are fetched on the click).
const PREFETCH = process.env.BENCH_ANNOTATOR_PREFETCH === "off" ? "off" : "on";
const WIDTH = 2048;
const HEIGHT = 1536;
const ADMIN = { email: "admin@bench.test", password: "Bench12345" };
const base = `http://127.0.0.1:${PORT}`;

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model ?? "cpu"} x${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}`);
if (process.env.BENCH_SKIP_BUILD !== "1") {
  console.log("building the app ...");
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
}

async function call(method, path, body, token, raw = false) {
  const headers = { Language: "en" };
  if (token) headers["X-Token"] = token;
  if (body !== undefined && !raw) headers["Content-Type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body) });
  const envelope = await res.json();
  if (envelope.code !== 0) throw new Error(`${method} ${path} answered ${envelope.code}: ${envelope.message}`);
  return envelope.data;
}

/** Rings of VERTICES points on a grid covering the image, radius jittered so no two are alike. */
function polygons(labelIds) {
  const cols = Math.ceil(Math.sqrt((SHAPES * WIDTH) / HEIGHT));
  const rows = Math.ceil(SHAPES / cols);
  const cw = WIDTH / cols;
  const ch = HEIGHT / rows;
  const out = [];
  for (let i = 0; i < SHAPES; i++) {
    const cx = (i % cols) * cw + cw / 2;
    const cy = Math.floor(i / cols) * ch + ch / 2;
    const points = [];
    for (let v = 0; v < VERTICES; v++) {
      const a = (v / VERTICES) * 2 * Math.PI;
      const r = (Math.min(cw, ch) / 2.4) * (0.8 + 0.2 * Math.sin(i * 7 + v * 3));
      points.push([+(cx + r * Math.cos(a)).toFixed(2), +(cy + r * Math.sin(a)).toFixed(2)]);
    }
    out.push({ labelId: labelIds[i % labelIds.length], geometry: { kind: "polygon", points } });
  }
  return out;
}

async function drawImage(seed) {
  const noise = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761 + seed * 97) % 251;
  return sharp(noise, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const dataDir = mkdtempSync(join(tmpdir(), "loupe-bench-annotator-"));
const logFile = join(dataDir, "server.log");
const server = spawn(process.execPath, [join(ROOT, "apps/server/dist/main.js")], {
  cwd: ROOT,
  env: {
    ...process.env, PORT: String(PORT), HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: base, LOG_LEVEL: "warn",
    DATABASE_URL: "", SMTP_URL: "", LOUPE_ADMIN_EMAIL: ADMIN.email, LOUPE_ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_AUTH_MAX: "1000",
  },
  stdio: ["ignore", openSync(logFile, "a"), openSync(logFile, "a")],
});
let context = null;
const userDir = mkdtempSync(join(tmpdir(), "loupe-bench-chromium-"));
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 240 || server.exitCode !== null) throw new Error(`server did not start:\n${readFileSync(logFile, "utf8")}`);
    await new Promise((r) => setTimeout(r, 250));
  }

  // --- data through the real API ---
  const login = await call("POST", "/api/login", { username: ADMIN.email, password: ADMIN.password });
  const token = login.token;
  const model = await call("POST", "/api/models", { name: `annotator bench ${Date.now()}`, type: "SEGMENTATION" }, token);
  const labelIds = [];
  for (const name of ["scratch", "dent", "stain"]) labelIds.push((await call("POST", `/api/models/${model.id}/labels`, { name }, token)).id);
  const form = new FormData();
  for (const n of [1, 2]) form.append("files", new Blob([await drawImage(n)], { type: "image/jpeg" }), `dense-${n}.jpg`);
  const uploaded = await call("POST", `/api/models/${model.id}/images/upload`, form, token, true);
  const imageIds = uploaded.results.map((r) => r.imageId);
  if (imageIds.length !== 2 || imageIds.some((id) => !id)) throw new Error(`upload refused: ${JSON.stringify(uploaded.results)}`);
  const shapes = polygons(labelIds);
  const t0 = performance.now();
  for (const id of imageIds) await call("PUT", `/api/models/${model.id}/images/${id}/annotations`, { baseVersion: 0, annotations: shapes }, token);
  console.log(`saved ${SHAPES} polygons x ${VERTICES} vertices on 2 images in ${(performance.now() - t0).toFixed(0)} ms`);
  const list = await call("GET", `/api/models/${model.id}/images?pageSize=10`, undefined, token);
  const [firstId, secondId] = list.items.map((i) => i.id);

  // --- the page, signed in as a user would be (token and open project in storage) ---
  context = await chromium.launchPersistentContext(userDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1600, height: 900 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${base}/signin`);
  await page.evaluate(
    ({ token, login, model, prefetch }) => {
      // What the session store keeps after a sign-in (apps/web/src/stores/session.ts).
      localStorage.setItem("token", token);
      // The page's prefetch switch (apps/web/src/pages/mark/annotate/annotationPrefetch.ts).
      if (prefetch === "off") localStorage.setItem("loupe.mark.prefetch", "off");
      localStorage.setItem("user", JSON.stringify(login));
      sessionStorage.setItem("data", JSON.stringify({
        id: String(model.id), name: model.name, code: model.code, type: model.type, sidebarType: model.sidebarType,
        productType: model.productType, projectStatus: model.projectStatus, hasTraining: false,
      }));
    },
    { token, login, model, prefetch: PREFETCH },
  );
  const canvas = page.getByTestId("annotator-canvas");
  const ready = async () =>
    page.waitForFunction(
      (n) => {
        const el = document.querySelector('[data-testid="annotator-canvas"]');
        return el?.getAttribute("data-ready") === "1" && el.getAttribute("data-shapes") === String(n);
      },
      SHAPES,
      { timeout: 60_000, polling: "raf" },
    );
  const loadStart = performance.now();
  await page.goto(`${base}/mark/segmentation?imageId=${firstId}`);
  await ready();
  const pageLoadMs = performance.now() - loadStart;
  console.log(`cold page load to ${SHAPES} shapes drawn: ${pageLoadMs.toFixed(0)} ms (includes the app bundle)`);
  // The guide opens for a first-time user; close it so it does not cover the canvas.
  const guideClose = page.locator(".ant-tour-close");
  if (await guideClose.isVisible().catch(() => false)) await guideClose.click();

  // --- open: next image, measured inside the page from the click to the frame with all shapes of image 2 ---
  const open = await page.evaluate(
    async ({ id, shapes }) => {
      const el = () => document.querySelector('[data-testid="annotator-canvas"]');
      // The page marks the steps of a switch (loupe:*): kept relative to the click, for the breakdown below.
      performance.clearMarks();
      const t = performance.now();
      const steps = () =>
        performance
          .getEntriesByType("mark")
          .filter((m) => m.name.startsWith("loupe:"))
          .map((m) => `${m.name.slice(6)} ${(m.startTime - t).toFixed(0)}`)
          .concat(
            // The requests of the switch: sent, first byte, last byte (ms after the click), size.
            performance
              .getEntriesByType("resource")
              .filter((r) => r.startTime >= t && r.name.includes("/images/"))
              .map((r) => `${new URL(r.name).pathname.split("/").slice(-2).join("/")} ${(r.startTime - t).toFixed(0)}/${(r.responseStart - t).toFixed(0)}/${(r.responseEnd - t).toFixed(0)} ${(r.encodedBodySize / 1024).toFixed(0)} kB`),
          );
      document.querySelector('[data-testid="mark-next"]').click();
      for (;;) {
        await new Promise((r) => requestAnimationFrame(r));
        // data-image names the picture on screen; the editor gets the new shapes in the same step as the page
        // switches the picture, so once it is drawn the shapes are the new image's.
        const drawn = el()?.getAttribute("data-image") ?? "";
        if (drawn.includes(`/images/${id}/`) && el()?.getAttribute("data-ready") === "1" && el()?.getAttribute("data-shapes") === String(shapes)) {
          return { ms: performance.now() - t, steps: steps() };
        }
        if (performance.now() - t > 30_000) throw new Error(`image ${id} did not open within 30 s`);
      }
    },
    { id: secondId, shapes: SHAPES },
  );
  console.log(`open next image (${secondId}) with ${SHAPES} shapes, prefetch ${PREFETCH}: ${open.ms.toFixed(0)} ms`);
  console.log(`  steps (ms after the click): ${open.steps.join(", ")}`);

  // --- pan and zoom, one input event per animation frame ---
  const box = await canvas.boundingBox();
  const frames = await page.evaluate(
    async ({ box, seconds }) => {
      const cx = box.x + box.width / 2;
      const cy = box.y + box.height / 2;
      const target = document.elementFromPoint(cx, cy);
      const fire = (type, x, y, extra = {}) =>
        target.dispatchEvent(new PointerEvent(type, { bubbles: true, cancelable: true, composed: true, pointerId: 1, pointerType: "mouse", clientX: x, clientY: y, ...extra }));
      const intervals = { pan: [], zoom: [], drawMs: [] };
      const run = async (kind, step) => {
        let last = await new Promise((r) => requestAnimationFrame(r));
        const end = last + seconds * 1000;
        let i = 0;
        for (;;) {
          step(i++);
          const now = await new Promise((r) => requestAnimationFrame(r));
          intervals[kind].push(now - last);
          const draw = Number(document.querySelector('[data-testid="annotator-canvas"]')?.getAttribute("data-draw-ms"));
          if (Number.isFinite(draw)) intervals.drawMs.push(draw);
          last = now;
          if (now > end) break;
        }
      };
      fire("pointerdown", cx, cy, { button: 1, buttons: 4 });
      await run("pan", (i) => fire("pointermove", cx + 200 * Math.sin(i / 15), cy + 120 * Math.cos(i / 15), { button: -1, buttons: 4 }));
      fire("pointerup", cx, cy, { button: 1, buttons: 0 });
      await run("zoom", (i) =>
        target.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, clientX: cx + 100, clientY: cy - 50, deltaY: Math.floor(i / 20) % 2 === 0 ? -60 : 60 })),
      );
      return intervals;
    },
    { box, seconds: SECONDS },
  );
  const all = [...frames.pan, ...frames.zoom];
  const fps = (ms) => 1000 / ms;
  const fpsP50 = fps(percentile(all, 50));
  const fpsP5 = fps(percentile(all, 95));
  for (const kind of ["pan", "zoom"]) {
    const f = frames[kind];
    console.log(`${kind}: ${f.length} frames, frame ms p50 ${percentile(f, 50).toFixed(1)} p95 ${percentile(f, 95).toFixed(1)} max ${Math.max(...f).toFixed(1)}`);
  }
  if (frames.drawMs.length > 0) console.log(`drawing per frame (data-draw-ms): p50 ${percentile(frames.drawMs, 50).toFixed(1)} ms, p95 ${percentile(frames.drawMs, 95).toFixed(1)} ms`);
  console.log(`targets: open < 500 ms, >= 50 frames/s`);
  console.log(`BENCH annotator open_ms=${open.ms.toFixed(0)} fps_p50=${fpsP50.toFixed(1)} fps_p5=${fpsP5.toFixed(1)} page_load_ms=${pageLoadMs.toFixed(0)} prefetch=${PREFETCH} shapes=${SHAPES} vertices=${VERTICES}`);
} finally {
  if (context) await context.close();
  server.kill("SIGTERM");
  rmSync(userDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
