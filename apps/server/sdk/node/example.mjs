// Loupe Node SDK example: node example.mjs IMAGE [--conf C]
// Prints the detections on IMAGE (JPG, PNG, …) as JSON, boxes in the image's own pixels.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadModel } from './lib/index.js';

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
async function open() {
  if (sdk.sdkType === 'cpu') return loadModel(modelPath, { executionProviders: ['cpu'] });
  try {
    return await loadModel(modelPath, { executionProviders: ['cuda', 'cpu'] });
  } catch (e) {
    console.error(`CUDA is not available (${String(e.message ?? e).split('\n')[0]}); running on the CPU`);
    return loadModel(modelPath, { executionProviders: ['cpu'] });
  }
}

const model = await open();
// Decoded as OpenCV does for the engine: EXIF orientation applied, alpha dropped, 8-bit RGB.
const { data, info } = await sharp(image).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
if (info.channels !== 3) throw new Error(`expected RGB pixels, got ${info.channels} channels`);
const detections = await model.detect(new Uint8Array(data.buffer, data.byteOffset, data.length), info.width, info.height, conf === undefined ? {} : { conf });
await model.close();
console.log(JSON.stringify({ image, width: info.width, height: info.height, detections }, null, 1));
