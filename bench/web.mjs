/* global window, document, location, PopStateEvent -- these run inside the page (page.evaluate, waitForFunction) */
// Web benchmark: the speed a user feels on first visits (issue 31 item 7). The built server serves a production
// build of the web app (built here into a temporary folder, or BENCH_WEB_DIR); Chromium (Debian's, with the e2e
// launch flags) opens each page in a fresh browser context, so every measurement starts with a cold cache.
//  - signin: navigation to / until the sign-in form is usable (its first button visible);
//  - pages: signed in (the session and the open model are placed in storage before the page's own script runs),
//    navigation straight to each main page until its content shows and no spinner is left in the main area;
//  - nav: the same pages reached by a click-free in-app navigation (history push) after the app has loaded once,
//    which is what a user feels after sign-in.
// Targets: signin < 1,500 ms, every page after sign-in (in app) < 1,000 ms. Ends with one line:
// BENCH web signin_ms=... page_max_ms=... (in app) direct_max_ms=... entry_kb=... entry_gz_kb=... first_kb=... js_total_kb=...
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright";
import { ROOT, benchServer, prepare, startServer, stopServer } from "./bench-server.mjs";

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 5);
const PORT = Number(process.env.BENCH_WEB_PORT ?? 18130);
// How long the user looks at the model list before opening pages in the app (0: at once, the worst case).
const THINK_MS = Number(process.env.BENCH_WEB_THINK_MS ?? 0);
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

prepare();
let webDir = process.env.BENCH_WEB_DIR;
let builtHere = null;
if (!webDir) {
  builtHere = mkdtempSync(join(tmpdir(), "loupe-bench-webdist-"));
  console.log(`building the web app into ${builtHere} ...`);
  execFileSync("npx", ["vite", "build", "--outDir", builtHere, "--emptyOutDir"], { cwd: join(ROOT, "apps/web"), stdio: "ignore" });
  webDir = builtHere;
}

/** The entry script named by index.html, and the sizes of every script of the build. */
function buildSizes(dir) {
  const html = readFileSync(join(dir, "index.html"), "utf8");
  const entry = /<script[^>]+src="\/?([^"]+\.js)"/.exec(html)?.[1];
  const js = readdirSync(join(dir, "assets")).filter((f) => f.endsWith(".js"));
  const total = js.reduce((n, f) => n + statSync(join(dir, "assets", f)).size, 0);
  const entryBytes = entry ? readFileSync(join(dir, entry)) : Buffer.alloc(0);
  // Scripts index.html preloads load with the entry before anything renders: they count towards the first load.
  const preloads = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/?([^"]+)"/g)].map((m) => m[1]);
  const first = [entry, ...preloads].filter(Boolean).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  return { entry, entryKb: entryBytes.length / 1024, entryGzKb: gzipSync(entryBytes).length / 1024, firstKb: first / 1024, jsKb: total / 1024, scripts: js.length };
}

const sizes = buildSizes(webDir);
console.log(`build: ${sizes.scripts} scripts, ${sizes.jsKb.toFixed(0)} kB in all; entry ${sizes.entry} ${sizes.entryKb.toFixed(0)} kB (${sizes.entryGzKb.toFixed(0)} kB gzip); entry + preloads ${sizes.firstKb.toFixed(0)} kB`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(" ")})`;

// The main area shows its content: some element with a test id inside it, and no spinner or loading marker left.
const CONTENT_READY = (path) => {
  if (path && location.pathname !== path) return false;
  const main = document.querySelector(".loupe-content");
  if (!main) return false;
  if (main.querySelector(".ant-spin-spinning, .ant-skeleton, [data-testid$='-loading'], [data-testid='page-loading']")) return false;
  return main.querySelector("[data-testid]") !== null;
};

const { dataDir, env, base } = await benchServer("web", PORT);
env.WEB_DIR = webDir;
let server = null;
let browser = null;
try {
  server = await startServer(env, base);
  const admin = { email: env.LOUPE_ADMIN_EMAIL, password: env.LOUPE_ADMIN_PASSWORD };
  const call = async (method, url, body, token) => {
    const res = await fetch(base + url, { method, headers: { "content-type": "application/json", ...(token ? { "x-token": token } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const json = await res.json();
    if (json.code !== 0) throw new Error(`${method} ${url}: ${json.message}`);
    return json.data;
  };
  const token = (await call("POST", "/api/login", { username: admin.email, password: admin.password })).token;
  const model = await call("POST", "/api/models", { name: "bench web", type: "DETECTION" }, token);

  // Headers the server sends with a hashed script: caching and compression, as a browser asks for them.
  // Node's fetch decodes the body: what arrives must be the script on disk, byte for byte.
  const asset = await fetch(`${base}/${sizes.entry}`, { headers: { "accept-encoding": "br, gzip" } });
  const served = Buffer.from(await asset.arrayBuffer());
  console.log(`entry script headers: cache-control=${asset.headers.get("cache-control")} content-encoding=${asset.headers.get("content-encoding") ?? "none"}`);
  if (!served.equals(readFileSync(join(webDir, sizes.entry)))) throw new Error("the served entry script differs from the built one");

  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });

  // Sign-in page, cold.
  const signin = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const t0 = performance.now();
    await page.goto(`${base}/`, { waitUntil: "commit" });
    await page.getByTestId("signin-with-password").waitFor({ state: "visible" });
    signin.push(performance.now() - t0);
    await context.close();
  }
  console.log(`signin: ${fmt(signin)}`);

  // One real sign-in and a real model opening through the UI; their storage is what every later context starts with.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/signin-home`);
  await page.getByTestId("signin-with-password").click();
  await page.getByTestId("signin-email").fill(admin.email);
  await page.getByTestId("signin-next").click();
  await page.getByTestId("signin-password").fill(admin.password);
  await page.getByTestId("signin-submit").click();
  await page.getByTestId("main-layout").waitFor();
  await page.goto(`${base}/agentList`);
  await page.getByTestId(`model-open-button-${model.id}`).click();
  await page.waitForFunction(() => location.pathname !== "/agentList" && sessionStorage.getItem("data") !== null);
  const storage = await page.evaluate(() => ({ local: { ...localStorage }, session: { ...sessionStorage } }));
  await context.close();
  if (!storage.session.data) throw new Error("opening the model left no project in session storage");

  const PAGES = [
    ["model list", "/agentList"], ["dashboard", "/dashboard"], ["gallery", "/gallery"], ["mark", "/mark/detection"],
    ["parameter", "/parameter"], ["train", "/train/detection"], ["model", "/model"], ["test", "/test/detection"],
    ["test images", "/testImage/detection"], ["download images", "/download/downloadImage"], ["download model", "/download/downloadModel"],
    ["profile", "/profile"], ["usage", "/usage"],
  ];
  const signedIn = async () => {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await ctx.addInitScript((s) => {
      if (localStorage.getItem("token")) return;
      for (const [k, v] of Object.entries(s.local)) localStorage.setItem(k, v);
      for (const [k, v] of Object.entries(s.session)) sessionStorage.setItem(k, v);
    }, storage);
    return ctx;
  };

  const direct = {};
  const nav = {};
  for (const [name] of PAGES) {
    direct[name] = [];
    nav[name] = [];
  }
  for (let i = 0; i < RUNS; i++) {
    for (const [name, path] of PAGES) {
      const ctx = await signedIn();
      const p = await ctx.newPage();
      const t0 = performance.now();
      await p.goto(base + path, { waitUntil: "commit" });
      await p.waitForFunction(CONTENT_READY, null, { polling: "raf", timeout: 30_000 });
      direct[name].push(performance.now() - t0);
      await ctx.close();
    }
    // After sign-in: the app is loaded once (the model list), then each page is opened inside it, its code cold.
    const ctx = await signedIn();
    const p = await ctx.newPage();
    await p.goto(`${base}/agentList`);
    await p.waitForFunction(CONTENT_READY, null, { polling: "raf", timeout: 30_000 });
    if (THINK_MS > 0) await p.waitForTimeout(THINK_MS);
    for (const [name, path] of PAGES) {
      const t0 = performance.now();
      await p.evaluate((to) => {
        window.history.pushState({}, "", to);
        window.dispatchEvent(new PopStateEvent("popstate"));
      }, path);
      await p.waitForFunction(CONTENT_READY, path, { polling: "raf", timeout: 30_000 });
      nav[name].push(performance.now() - t0);
    }
    await ctx.close();
  }
  for (const [name, path] of PAGES) console.log(`${name.padEnd(16)} ${path.padEnd(26)} direct: ${fmt(direct[name])} | in app: ${fmt(nav[name])}`);
  // A page after sign-in: opened inside the loaded app, its own code and data cold (what a signed-in user feels).
  const pageMax = Math.max(...PAGES.map(([n]) => median(nav[n])));
  // The stricter case: the page's address opened in a fresh browser, the whole app cold.
  const directMax = Math.max(...PAGES.map(([n]) => median(direct[n])));
  const met = (ok) => (ok ? "met" : "NOT met");
  console.log(`targets (medians): sign-in page < 1500 ms ${met(median(signin) < 1500)}; every page after sign-in < 1000 ms ${met(pageMax < 1000)}; (cold load of a page by its address: max ${directMax.toFixed(0)} ms)`);
  console.log(
    `BENCH web signin_ms=${median(signin).toFixed(0)} page_max_ms=${pageMax.toFixed(0)} direct_max_ms=${directMax.toFixed(0)} entry_kb=${sizes.entryKb.toFixed(0)} entry_gz_kb=${sizes.entryGzKb.toFixed(0)} first_kb=${sizes.firstKb.toFixed(0)} js_total_kb=${sizes.jsKb.toFixed(0)} runs=${RUNS} think_ms=${THINK_MS}`,
  );
} finally {
  await browser?.close();
  await stopServer(server, dataDir);
  if (builtHere && existsSync(builtHere)) rmSync(builtHere, { recursive: true, force: true });
}
