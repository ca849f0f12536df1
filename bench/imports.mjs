// Import benchmark (issue 33): real annotation files through the real annotation-ZIP route, over HTTP, the
// images carried in each ZIP (as Roboflow, CVAT and Ultralytics exports carry them):
// - DeepPCB's Pascal VOC XML (1,500 files) and the same boxes as COCO JSON, into a detection model;
// - plates-eu-br's COCO with each plate's text, into an OCR model (the text must arrive with the box);
// - SD-saliency-900's pixel masks written as COCO RLE (compressed, as pycocotools writes them), into a
//   segmentation model: the traced polygons are drawn back and compared with the masks (IoU).
// Prints, per file set, shapes in the files, imported, and every skip reason; ends with one line
// BENCH imports imported_pct=... deeppcb_voc_pct=... deeppcb_coco_pct=... plates_text_pct=... mask_iou=... shapes_per_s=...
// Target: imported_pct >= 98 (every other shape named in the report).
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { benchServer, prepare, repositories, ROOT, seedUser, startServer, stopServer } from "./bench-server.mjs";
import { zipOf } from "./sample.mjs";

const DATA = process.env.BENCH_DATA_DIR ?? join(ROOT, "..", "shared", "data");
const PORT = Number(process.env.BENCH_IMPORTS_PORT ?? 18120);
const MASKS = Number(process.env.BENCH_IMPORTS_MASKS ?? 900);
const require = createRequire(join(ROOT, "apps/server/package.json"));
const sharp = require("sharp");

prepare();
for (const d of ["deeppcb", "plates-eu-br", "sd-saliency-900"]) {
  if (!existsSync(join(DATA, d))) {
    console.error(`missing ${join(DATA, d)} (set BENCH_DATA_DIR)`);
    process.exit(2);
  }
}
const { openDatabase } = await repositories();
const { dataDir, env, config, base } = await benchServer("imports", PORT);
let server = null;

/** RLE as pycocotools' rleToString writes it: column-major runs from background, 5-bit chunks, deltas from two back. */
function rleCompressed(mask, h, w) {
  const counts = [];
  let prev = 0;
  let run = 0;
  for (let x = 0; x < w; x++)
    for (let y = 0; y < h; y++) {
      const v = mask[y * w + x] ? 1 : 0;
      if (v !== prev) {
        counts.push(run);
        run = 0;
        prev = v;
      }
      run++;
    }
  counts.push(run);
  let s = "";
  counts.forEach((c, i) => {
    let x = i > 2 ? c - counts[i - 2] : c;
    for (let more = true; more; ) {
      let ch = x & 0x1f;
      x >>= 5;
      more = ch & 0x10 ? x !== -1 : x !== 0;
      if (more) ch |= 0x20;
      s += String.fromCharCode(ch + 48);
    }
  });
  return s;
}

let token = "";
const api = async (method, path, body) => {
  const r = await fetch(`${base}${path}`, { method, headers: { "x-token": token, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return r.json();
};
const newModel = async (type) => (await api("POST", "/api/models", { name: `imports-${type}-${Date.now()}`, type })).data;

async function importZip(model, entries) {
  const body = new FormData();
  body.append("file", new Blob([await zipOf(entries)]), "import.zip");
  const t0 = performance.now();
  const r = await (await fetch(`${base}/api/models/${model.id}/images/annotations`, { method: "POST", headers: { "x-token": token }, body })).json();
  return { ...r, seconds: (performance.now() - t0) / 1000 };
}

function summary(name, expected, r) {
  const d = r.data ?? {};
  const reasons = new Map();
  for (const f of d.report ?? []) for (const s of f.skipped) reasons.set(s.reason, (reasons.get(s.reason) ?? 0) + s.count);
  const conv = new Map();
  for (const f of d.report ?? []) for (const s of f.converted) conv.set(s.reason, (conv.get(s.reason) ?? 0) + s.count);
  const pct = expected > 0 ? (100 * (d.annotations ?? 0)) / expected : 0;
  console.log(
    `${name}: code ${r.code}${r.code ? ` (${r.message})` : ""}, ${expected} shapes in the files, ${d.annotations ?? 0} imported (${pct.toFixed(2)} %), ${d.skipped ?? 0} skipped` +
      ` [${[...reasons].map(([k, v]) => `${k} ${v}`).join(", ")}], converted [${[...conv].map(([k, v]) => `${k} ${v}`).join(", ")}], images added ${d.imagesAdded ?? 0}, ${r.seconds.toFixed(1)} s`,
  );
  return { pct, imported: d.annotations ?? 0, expected, seconds: r.seconds };
}

try {
  const database = await openDatabase(config);
  ({ token } = await seedUser(database.db, config));
  server = await startServer(env, base);
  const load = () => loadavg()[0].toFixed(1);

  // --- DeepPCB: VOC with its images, then the same boxes as COCO ---
  const pcb = join(DATA, "deeppcb");
  const vocFiles = readdirSync(join(pcb, "voc")).filter((f) => f.endsWith(".xml"));
  const vocEntries = vocFiles.map((f) => ({ path: `Annotations/${f}`, data: readFileSync(join(pcb, "voc", f)) }));
  const vocShapes = vocEntries.reduce((n, e) => n + (e.data.toString().match(/<object>/g) ?? []).length, 0);
  const pcbImages = readdirSync(join(pcb, "images")).map((f) => ({ path: `JPEGImages/${f}`, data: readFileSync(join(pcb, "images", f)) }));
  const det = await newModel("DETECTION");
  const voc = summary("DeepPCB VOC + images", vocShapes, await importZip(det, [...pcbImages, ...vocEntries]));
  const cocoEntries = ["coco_trainval.json", "coco_test.json"].map((f) => ({ path: `annotations/${f}`, data: readFileSync(join(pcb, f)) }));
  const cocoShapes = cocoEntries.reduce((n, e) => n + JSON.parse(e.data.toString()).annotations.length, 0);
  const coco = summary("DeepPCB COCO (images already in)", cocoShapes, await importZip(det, cocoEntries));

  // --- plates: COCO with text, into an OCR model ---
  const plates = join(DATA, "plates-eu-br");
  const platesJson = JSON.parse(readFileSync(join(plates, "coco.json"), "utf8"));
  const ocr = await newModel("OCR");
  const plateImages = readdirSync(join(plates, "images")).map((f) => ({ path: `images/${f}`, data: readFileSync(join(plates, "images", f)) }));
  const pr = await importZip(ocr, [...plateImages, { path: "annotations/instances_default.json", data: JSON.stringify(platesJson) }]);
  const plate = summary("plates COCO + text + images", platesJson.annotations.length, pr);
  const list = (await api("GET", `/api/models/${ocr.id}/images?pageSize=200`)).data.items;
  let withText = 0;
  for (const img of list) {
    const a = (await api("GET", `/api/models/${ocr.id}/images/${img.id}/annotations`)).data.annotations;
    withText += a.filter((x) => typeof x.geometry.text === "string" && x.geometry.text.length > 0).length;
  }
  const nextPage = (await api("GET", `/api/models/${ocr.id}/images?pageSize=200&page=2`)).data.items;
  for (const img of nextPage) withText += (await api("GET", `/api/models/${ocr.id}/images/${img.id}/annotations`)).data.annotations.filter((x) => x.geometry.text).length;
  const textPct = (100 * withText) / platesJson.annotations.length;
  console.log(`plates: ${withText} of ${platesJson.annotations.length} boxes arrived with their text (${textPct.toFixed(2)} %)`);

  // --- SD-saliency-900: masks as compressed COCO RLE, traced into polygons, drawn back ---
  const sd = join(DATA, "sd-saliency-900");
  const names = readdirSync(join(sd, "masks")).filter((f) => f.endsWith(".png")).sort().slice(0, MASKS);
  const cats = ["In", "Pa", "Sc"];
  const masks = new Map();
  const rleDoc = { images: [], categories: cats.map((c, i) => ({ id: i, name: c })), annotations: [] };
  const sdEntries = [];
  for (const [i, f] of names.entries()) {
    const { data, info } = await sharp(join(sd, "masks", f)).greyscale().raw().toBuffer({ resolveWithObject: true });
    const bin = new Uint8Array(info.width * info.height);
    for (let k = 0; k < bin.length; k++) bin[k] = data[k] > 127 ? 1 : 0;
    const stem = f.replace(/\.png$/, "");
    masks.set(`${stem}.bmp`, { bin, w: info.width, h: info.height });
    rleDoc.images.push({ id: i, file_name: `${stem}.bmp`, width: info.width, height: info.height });
    rleDoc.annotations.push({ id: i, image_id: i, category_id: cats.indexOf(stem.split("_")[0]), iscrowd: 1, segmentation: { size: [info.height, info.width], counts: rleCompressed(bin, info.height, info.width) } });
    sdEntries.push({ path: `images/${stem}.bmp`, data: readFileSync(join(sd, "images", `${stem}.bmp`)) });
  }
  const seg = await newModel("SEGMENTATION");
  const sr = await importZip(seg, [...sdEntries, { path: "annotations/instances.json", data: JSON.stringify(rleDoc) }]);
  summary(`SD-saliency ${names.length} masks as RLE + images`, rleDoc.annotations.length, sr);
  let inter = 0;
  let union = 0;
  for (let page = 1; ; page++) {
    const items = (await api("GET", `/api/models/${seg.id}/images?pageSize=200&page=${page}`)).data.items;
    if (items.length === 0) break;
    for (const img of items) {
      const m = masks.get(img.name);
      if (!m) continue;
      const shapes = (await api("GET", `/api/models/${seg.id}/images/${img.id}/annotations`)).data.annotations;
      const paths = shapes.filter((s) => s.geometry.kind === "polygon").map((s) => `<path d="M${s.geometry.points.map(([x, y]) => `${x},${y}`).join("L")}Z"/>`);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${m.w}" height="${m.h}"><rect width="100%" height="100%" fill="black"/><g fill="white" shape-rendering="crispEdges">${paths.join("")}</g></svg>`;
      const drawn = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer();
      for (let k = 0; k < m.bin.length; k++) {
        const a = m.bin[k] === 1;
        const b = drawn[k] > 127;
        if (a && b) inter++;
        if (a || b) union++;
      }
    }
  }
  const iou = union > 0 ? inter / union : 0;
  console.log(`SD-saliency: traced polygons drawn back against the masks: IoU ${iou.toFixed(4)} over all pixels`);

  const total = voc.expected + coco.expected + plate.expected + rleDoc.annotations.length;
  // A mask may become several polygons (one per island): masks imported = masks less those the report skipped.
  const importedMasks = sr.code === 0 ? Math.max(0, rleDoc.annotations.length - (sr.data?.skipped ?? 0)) : 0;
  const imported = voc.imported + coco.imported + plate.imported + importedMasks;
  const seconds = voc.seconds + coco.seconds + plate.seconds;
  console.log(`load ${load()}`);
  console.log(
    `BENCH imports imported_pct=${((100 * imported) / total).toFixed(2)} deeppcb_voc_pct=${voc.pct.toFixed(2)} deeppcb_coco_pct=${coco.pct.toFixed(2)} plates_text_pct=${textPct.toFixed(2)} mask_iou=${iou.toFixed(4)} shapes_per_s=${((voc.imported + coco.imported + plate.imported) / seconds).toFixed(0)}`,
  );
} finally {
  await stopServer(server, dataDir);
}
