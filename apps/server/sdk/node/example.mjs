// Loupe Node SDK example: node example.mjs IMAGE [--conf C]
// Prints what the model finds on IMAGE (JPG, PNG, …) as JSON, in the image's own pixels: detections (boxes),
// classes (a classifier, most probable first), a segmenter's objects and pixels per class, or text lines (OCR:
// rotated boxes with the text read in each). A MEASURE model (sdk.json has `measure`) also prints each object's
// fields (px, and mm when calibrated) and the image's OK/NG verdict with its reasons.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describeFailure, judgeImage, loadModel, loadOcrModel, measureDetection, measureInstance, toMillimetres } from './lib/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const [image, ...rest] = process.argv.slice(2);
if (!image) {
  console.error('usage: node example.mjs IMAGE [--conf C]');
  process.exit(2);
}
const confAt = rest.indexOf('--conf');
const conf = confAt >= 0 ? Number(rest[confAt + 1]) : undefined;

const sdk = JSON.parse(await readFile(path.join(here, '..', 'sdk.json'), 'utf8'));
const modelPath = path.join(here, '..', 'model.onnx');

// GPU SDK types try CUDA first; without onnxruntime-node's CUDA binaries (see README) the CPU runs the model.
// OCR: model.onnx finds the lines, model-rec.onnx (named in its metadata) reads them.
const load = sdk.task === 'ocr' ? loadOcrModel : loadModel;
async function open() {
  if (sdk.sdkType === 'cpu') return load(modelPath, { executionProviders: ['cpu'] });
  try {
    return await load(modelPath, { executionProviders: ['cuda', 'cpu'] });
  } catch (e) {
    console.error(`CUDA is not available (${String(e.message ?? e).split('\n')[0]}); running on the CPU`);
    return load(modelPath, { executionProviders: ['cpu'] });
  }
}

const model = await open();
// Decoded as OpenCV does for the engine: EXIF orientation applied, alpha dropped, 8-bit RGB.
const { data, info } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
if (info.channels !== 3) throw new Error(`expected RGB pixels, got ${info.channels} channels`);
const rgb = new Uint8Array(data.buffer, data.byteOffset, data.length);
const opts = conf === undefined ? {} : { conf };
const out = { image, width: info.width, height: info.height, task: model.meta.task };
// Each task has its own post-processing (lib/index.js): boxes, classes, or a class map with its objects.
if (sdk.task === 'ocr') {
  out.lines = await model.ocr(rgb, info.width, info.height, opts);
} else if (model.meta.task === 'classify') {
  out.classes = await model.classify(rgb, info.width, info.height, opts);
} else if (model.meta.task === 'segment') {
  const { classMap, instances } = await model.segment(rgb, info.width, info.height, opts);
  const pixels = {};
  for (const v of classMap) if (v > 0) pixels[model.meta.labels[v - 1]] = (pixels[model.meta.labels[v - 1]] ?? 0) + 1;
  // Each instance's mask (its pixels within bbox) is what measureInstance() reads; too long to print.
  Object.assign(out, { pixelsPerClass: pixels, instances: instances.map(({ mask: _mask, ...o }) => o) });
  if (sdk.measure) out.measurement = measurement(instances.map((o) => ({ label: o.label, confidence: o.score, px: measureInstance(o) })));
} else {
  out.detections = await model.detect(rgb, info.width, info.height, opts);
  if (sdk.measure) out.measurement = measurement(out.detections.map((d) => ({ label: d.label, confidence: d.score, px: measureDetection(d) })));
}
await model.close();

/**
 * The fields of each object as the platform shows them (the engine's definitions, rounded to 3 decimals like
 * the engine; mm from those pixels by the calibration) and the image's verdict under the model's tolerances.
 */
function measurement(found) {
  const { mmPerPx, tolerances } = sdk.measure;
  const r3 = (m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
  const objects = found.map((o) => {
    const px = r3(o.px);
    return { label: o.label, confidence: o.confidence, px, mm: mmPerPx === null ? null : toMillimetres(px, mmPerPx) };
  });
  const counts = {};
  for (const o of objects) counts[o.label] = (counts[o.label] ?? 0) + 1;
  if (!tolerances) return { count: objects.length, counts, mmPerPx, ok: null, reasons: [], objects };
  const verdict = judgeImage(objects.map((o) => ({ label: o.label, values: tolerances.unit === 'mm' ? o.mm : o.px })), tolerances);
  return {
    count: objects.length,
    counts,
    mmPerPx,
    unit: tolerances.unit,
    ok: verdict.ok,
    reasons: verdict.failures.map(describeFailure),
    objects: objects.map((o, i) => ({ ...o, failed: verdict.failed[i] })),
  };
}
console.log(JSON.stringify(out, null, 1));
