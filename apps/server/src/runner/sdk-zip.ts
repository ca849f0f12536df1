import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import yazl from 'yazl';
import type { Range, SdkType, TrainingTask } from '@loupe/contracts';

/** apps/server, from src/runner or dist/runner alike. */
const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** What the ZIP holds besides the model: the examples and READMEs (apps/server/sdk). */
const TEMPLATES = path.join(SERVER_DIR, 'sdk');
/** The Node SDK's library is packages/runtime's build. */
const RUNTIME_DIR = path.resolve(SERVER_DIR, '../../packages/runtime');

const require = createRequire(import.meta.url);
const dependency = (pkgJson: string, name: string) => (require(pkgJson) as { dependencies: Record<string, string> }).dependencies[name]!;

export interface SdkInfo {
  model: string;
  version: string;
  sdkType: SdkType;
  task: TrainingTask;
  labels: string[];
  inputW: number;
  inputH: number;
  cameraW: number;
  cameraH: number;
  /** Detectors only. */
  maxDet: number | null;
  conf: number;
  iou: number | null;
  /** Test-time augmentation inside model.onnx (off, hflip, flips, dihedral). */
  tta: string;
  /**
   * The views model-raw.onnx's metadata asks its caller (the Python SDK) to run: tta, or flips where a wide input
   * cannot run the transposed views of dihedral in a graph of fixed size.
   */
  rawTta: string;
  /**
   * MEASURE models only (else absent): the model's calibration (mm per pixel, null when not calibrated) and its
   * tolerances with labels by name (null when none, or in mm without a calibration: nothing is judged, as on
   * the platform). The Node example measures each object with @loupe/runtime's measure.ts and judges the image.
   */
  measure?: { mmPerPx: number | null; tolerances: SdkTolerances | null };
}

/** contracts' Tolerances with each label's id replaced by its name (the SDK knows labels by name). */
export interface SdkTolerances {
  unit: 'px' | 'mm';
  count?: Range | null;
  labels: { label: string; count?: Range | null; fields: Record<string, Range> }[];
}

/** A MEASURE model's README: what the example prints, its calibration and tolerances. */
function measureText(info: SdkInfo): Record<string, string> | null {
  if (!info.measure) return null;
  const { mmPerPx, tolerances } = info.measure;
  const segment = info.task === 'segment';
  const scale = mmPerPx === null ? 'The model is not calibrated: fields are in pixels only.' : `Calibration: ${mmPerPx} mm per pixel (\`mm\` fields; area in mm²).`;
  const judged = tolerances === null ? 'No tolerances are set (or they are in mm without a calibration): images are not judged.' : `Tolerances (in ${tolerances.unit}, \`sdk.json\` → \`measure.tolerances\`) make each image OK or NG, with the reasons.`;
  return {
    modelFile: segment
      ? 'the segmenter, per-pixel class probabilities inside the graph (onnxruntime and OpenCV DNN: both SDKs)'
      : 'the rotated-box detector with decoding and NMS inside the graph (onnxruntime, the Node SDK)',
    rawRow: segment ? '' : '| `model-raw.onnx` | the same detector without NMS, for OpenCV DNN (the Python SDK) |\n',
    what: 'an object\'s `classId`',
    output:
      `Measurement (MEASURE model, ${segment ? 'objects of the predicted masks' : 'rotated boxes'}): each object's area, major and minor axis, ` +
      `major-axis angle (degrees, 0–180, clockwise from +x) and centroid, as the platform measures them (\`px\`, and \`mm\` when calibrated), ` +
      `and the image's count. ${scale} ${judged}${segment ? graphTtaText(info.tta, PIXEL_PROBS) : ttaText(info.tta, info.rawTta)}`,
  };
}

/** What a segmenter's views average. */
const PIXEL_PROBS = 'the per-pixel probabilities, mapped back onto the image,';
const TTA_VIEWS: Record<string, string> = { hflip: '2 views: the image and its mirror', flips: '4 views: the image flipped left-right, upside down and both', dihedral: '8 views: the image flipped and turned by 90°' };

/** The README's sentences on test-time augmentation, when the tested settings had it. */
function ttaText(tta: string, rawTta: string): string {
  const views = TTA_VIEWS[tta];
  if (!views) return '';
  const raw = rawTta === tta ? 'the same views' : `${TTA_VIEWS[rawTta]} (a graph of fixed size cannot run a wide image transposed)`;
  return ` Test-time augmentation: \`model.onnx\` averages ${views} (one inference each); the Python SDK runs ${raw} through \`model-raw.onnx\` and averages them as the engine does.`;
}

/**
 * A classifier's or segmenter's views are inside its one graph, flips OpenCV loads included: both SDKs run them.
 * `what`: what is averaged.
 */
function graphTtaText(tta: string, what: string): string {
  const views = TTA_VIEWS[tta];
  return views ? ` Test-time augmentation: \`model.onnx\` averages ${what} of ${views} (one inference each).` : '';
}

/** What the README says the files and outputs are, per task. */
function taskText(info: SdkInfo): Record<string, string> {
  const measured = measureText(info);
  if (measured) return measured;
  const detector = info.task === 'detect' || info.task === 'obb';
  const raw = '| `model-raw.onnx` | the same detector without NMS, for OpenCV DNN (the Python SDK) |\n';
  if (detector) {
    return {
      modelFile: 'the detector with decoding and NMS inside the graph (onnxruntime, the Node SDK)',
      rawRow: raw,
      what: 'a detection\'s `classId`',
      output: `At most ${info.maxDet} detections per image, confidence threshold ${info.conf}, NMS IoU ${info.iou}.${ttaText(info.tta, info.rawTta)}`,
    };
  }
  if (info.task === 'ocr') {
    return {
      modelFile: 'the text detector (rotated boxes) with decoding and NMS inside the graph (onnxruntime, the Node SDK)',
      rawRow:
        '| `model-raw.onnx` | the same text detector without NMS, for OpenCV DNN (the Python SDK) |\n' +
        '| `model-rec.onnx` | the text recognizer: reads each line cut out of the image (both SDKs) |\n',
      what: 'a text line\'s `classId`',
      output: `At most ${info.maxDet} text lines per image, confidence threshold ${info.conf}, NMS IoU ${info.iou}; each line comes with the text read in it (\`text\`, \`textScore\`), and takes the class whose training texts it fits a whole edit better than the detector's class (digits count alike, so classes of one format keep the detector's).`,
    };
  }
  if (info.task === 'classify') {
    return {
      modelFile: 'the classifier, class probabilities inside the graph (onnxruntime and OpenCV DNN: both SDKs)',
      rawRow: '',
      what: 'a result\'s `classId`',
      output: `Output: every class with its probability, the most probable first (\`classify\`). The image is letterboxed to the square the model was trained on.${graphTtaText(info.tta, 'the probabilities')}`,
    };
  }
  return {
    modelFile: 'the segmenter, per-pixel class probabilities inside the graph (onnxruntime and OpenCV DNN: both SDKs)',
    rawRow: '',
    what: 'an instance\'s `classId` (class map value = classId + 1, 0 = background)',
    output: `Output (\`segment\`): the class of every pixel of the image and its objects (connected regions of one class: box, area, outline, mean probability).${graphTtaText(info.tta, PIXEL_PROBS)}`,
  };
}

const SDK_TITLES: Record<SdkType, string> = { cpu: 'CPU', gpu1020: 'NVIDIA 10/20 series GPU', gpu30: 'NVIDIA 30 series GPU' };
const GPU_NOTES: Record<SdkType, string> = {
  cpu: 'This is the CPU SDK: it runs anywhere onnxruntime or OpenCV runs. GPU SDKs are separate downloads.',
  gpu1020: 'This SDK targets NVIDIA 10 and 20 series cards (CUDA execution provider).',
  gpu30: 'This SDK targets NVIDIA 30 series cards (CUDA execution provider).',
};

function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, k: string) => (k in vars ? String(vars[k]) : whole));
}

/**
 * The SDK ZIP (SPEC §2 /download/downloadSDK): the ONNX graph (a detector's also without NMS), labels.json, sdk.json, a runnable Node SDK
 * (node/: @loupe/runtime's build, package.json, example.mjs) and a Python SDK (python/: loupe_sdk.py,
 * example.py), each with its README.
 */
/** A ZIP of files (name in the ZIP → path on disk) and texts (name → content). */
export async function writeZip(out: string, files: Record<string, string>, texts: Record<string, string> = {}): Promise<void> {
  const zip = new yazl.ZipFile();
  const done = new Promise<void>((resolve, reject) => {
    const stream = fs.createWriteStream(out);
    stream.on('close', resolve).on('error', reject);
    zip.outputStream.on('error', reject).pipe(stream);
  });
  for (const [name, file] of Object.entries(files)) zip.addFile(file, name);
  for (const [name, text] of Object.entries(texts)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  await done;
}

export async function buildSdkZip(out: string, files: { model: string; raw: string | null; rec: string | null }, info: SdkInfo): Promise<void> {
  const lib = path.join(RUNTIME_DIR, 'dist');
  if (!fs.existsSync(path.join(lib, 'index.js'))) throw new Error(`the Node SDK is not built (${lib}): run npm run build -w @loupe/runtime`);
  const zip = new yazl.ZipFile();
  const done = new Promise<void>((resolve, reject) => {
    const stream = fs.createWriteStream(out);
    stream.on('close', resolve).on('error', reject);
    zip.outputStream.on('error', reject).pipe(stream);
  });
  zip.addFile(files.model, 'model.onnx');
  if (files.raw) zip.addFile(files.raw, 'model-raw.onnx');
  if (files.rec) zip.addFile(files.rec, 'model-rec.onnx');
  zip.addBuffer(Buffer.from(`${JSON.stringify(info.labels, null, 1)}\n`), 'labels.json');
  const { labels: _labels, ...sdk } = info;
  zip.addBuffer(Buffer.from(`${JSON.stringify(sdk, null, 1)}\n`), 'sdk.json');
  const readme = await fs.promises.readFile(path.join(TEMPLATES, 'README.md'), 'utf8');
  const { measure: _measure, ...plain } = sdk;
  const vars = { ...plain, maxDet: sdk.maxDet ?? '', iou: sdk.iou ?? '', ...taskText(info), sdkTitle: SDK_TITLES[info.sdkType], gpu: GPU_NOTES[info.sdkType] };
  zip.addBuffer(Buffer.from(fill(readme, vars)), 'README.md');

  for (const f of (await fs.promises.readdir(lib)).sort()) {
    if (f.endsWith('.js') || f.endsWith('.d.ts')) zip.addFile(path.join(lib, f), `node/lib/${f}`);
  }
  const pkg = {
    name: 'loupe-sdk',
    version: '1.0.0',
    private: true,
    type: 'module',
    main: 'lib/index.js',
    types: 'lib/index.d.ts',
    scripts: { example: 'node example.mjs' },
    dependencies: {
      'onnxruntime-node': dependency(path.join(RUNTIME_DIR, 'package.json'), 'onnxruntime-node'),
      sharp: dependency(path.join(SERVER_DIR, 'package.json'), 'sharp'),
    },
  };
  zip.addBuffer(Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`), 'node/package.json');
  for (const dir of ['node', 'python']) {
    for (const f of (await fs.promises.readdir(path.join(TEMPLATES, dir))).sort()) {
      if (f.startsWith('.') || f === '__pycache__') continue;
      zip.addFile(path.join(TEMPLATES, dir, f), `${dir}/${f}`);
    }
  }
  zip.end();
  await done;
}
