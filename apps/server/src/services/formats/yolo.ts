import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { badField, baseName, boundsOf, breathe, skip, stemOf, toExportable, tooManyPoints, type Parsed, type Writer } from './types.js';
import { imageRefOf, isDota } from './dota.js';

export interface ClassFile {
  path: string;
  data: Buffer;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const isNumber = (t: string) => NUMBER.test(t);
const linesOf = (text: string) => text.split(/\r\n|\r|\n/);
const PATH_LIKE = /[/\\]|\.(jpe?g|png|bmp|tiff?|webp|mpo)\s*$/i;
/** Darknet / Ultralytics list files: one image path a line, never labels. */
const LIST_FILE = /^(train|val|valid|validation|test|trainval)\.txt$/i;

/** One name a line, none of them a path or a YOLO label line (labels.txt may be either). */
function nameList(text: string): string[] | null {
  const names = linesOf(text).map((l) => l.trim()).filter(Boolean);
  if (names.length === 0 || names.some((l) => PATH_LIKE.test(l) || isLabelLine(l))) return null;
  return names;
}

/**
 * What a label line looks like: numbers only (a class and values), or a class and at least four values of
 * which a few are spoilt ("0 0.5 abc 0.1 0.1" is a bad label line to report, not prose to pass over).
 */
const isLabelLine = (line: string) => {
  const t = line.trim().split(/\s+/);
  if (t.length >= 2 && t.every(isNumber)) return true;
  return t.length >= 5 && /^\d+$/.test(t[0]!) && t.filter(isNumber).length * 2 > t.length;
};

const YAML_MAX_CHARS = 1_000_000;

/** Ultralytics pose datasets: `kpt_shape: [K, D]`, K keypoints of D values (x, y[, visibility]) after each box. */
export type KeypointShape = [number, number];

function kptShapeOf(doc: Record<string, unknown>): KeypointShape | undefined {
  const k = doc.kpt_shape;
  if (!Array.isArray(k) || k.length !== 2) return undefined;
  const [n, d] = k as unknown[];
  return Number.isInteger(n) && (n as number) > 0 && (n as number) <= 1000 && (d === 2 || d === 3) ? [n as number, d] : undefined;
}

/** `names` at a YAML's top level: a list, or an index map (Ultralytics writes `0: person`), and any kpt_shape. */
function yamlNames(text: string): { names: string[]; kpt?: KeypointShape } | null {
  // Dataset YAMLs are a few KB; the yaml parser reads about a MB a second on the event loop, so a large
  // YAML (or one that never says `names`) is not parsed at all.
  if (text.length > YAML_MAX_CHARS || !/\bnames\b/.test(text)) return null;
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch {
    return null;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return null;
  const names = (doc as Record<string, unknown>).names;
  const kpt = kptShapeOf(doc as Record<string, unknown>);
  const withKpt = (list: string[]) => ({ names: list, ...(kpt ? { kpt } : {}) });
  const asName = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v).trim() : '');
  if (Array.isArray(names)) return names.length > 0 ? withKpt(names.map(asName)) : null;
  if (typeof names !== 'object' || names === null) return null;
  const entries = Object.entries(names as Record<string, unknown>);
  if (entries.length === 0 || !entries.every(([k]) => /^\d+$/.test(k)) || entries.some(([k]) => Number(k) > 100_000)) return null;
  const list: string[] = [];
  for (const [k, v] of entries) list[Number(k)] = asName(v);
  // A gap in the map (0, 1, 3) leaves '' at 2: lines with class 2 are then reported as unknownClass.
  return withKpt(Array.from(list, (n) => n ?? ''));
}

/** The class list a file holds, and how much it is preferred when several are as near the labels. */
function classListOf(path: string, data: Buffer): { names: string[]; rank: number; kpt?: KeypointShape } | null {
  const name = baseName(path).toLowerCase();
  const read = () => data.toString('utf8').replace(/^\uFEFF/, '');
  if (/\.ya?ml$/.test(name)) {
    const found = yamlNames(read());
    return found ? { ...found, rank: name === 'data.yaml' || name === 'data.yml' ? 0 : 3 } : null;
  }
  if (name === 'classes.txt') {
    const names = linesOf(read()).map((l) => l.trim()).filter(Boolean);
    return names.length > 0 ? { names, rank: 1 } : null;
  }
  if (name.endsWith('.names') || name === '_darknet.labels' || name === 'labels.txt') {
    const names = nameList(read());
    return names ? { names, rank: name.endsWith('.names') ? 2 : 4 } : null;
  }
  return null;
}

const dirOf = (p: string) => p.replace(/\\/g, '/').split('/').slice(0, -1);
/** Folder steps between two folders (up from one, down to the other). */
function distance(a: string[], b: string[]): number {
  let common = 0;
  while (common < a.length && common < b.length && a[common]!.toLowerCase() === b[common]!.toLowerCase()) common += 1;
  return a.length - common + (b.length - common);
}

/**
 * The class list for a ZIP's YOLO label files: classes.txt (labelImg, Label Studio), *.names (Darknet, CVAT's
 * obj.names), _darknet.labels / labels.txt when they hold names (Roboflow), data.yaml or any YAML with a
 * top-level `names` (Ultralytics, Roboflow, X-AnyLabeling). With several, the one nearest the label files
 * wins (a split's own list over one elsewhere), then data.yaml, classes.txt, .names, other YAML, the rest.
 */
export function findClassList(files: ClassFile[]): { entry: string; names: string[]; kpt?: KeypointShape } | null {
  const labelDirs = new Map<string, string[]>();
  for (const f of files) {
    if (!/\.txt$/i.test(f.path)) continue;
    if (isYoloLabelFile(f.path, f.data.toString('utf8'))) labelDirs.set(dirOf(f.path).join('/').toLowerCase(), dirOf(f.path));
  }
  let best: { entry: string; names: string[]; kpt?: KeypointShape; key: [number, number, number] } | null = null;
  for (const f of files) {
    const list = classListOf(f.path, f.data);
    if (!list) continue;
    const dir = dirOf(f.path);
    const near = labelDirs.size === 0 ? dir.length : Math.min(...[...labelDirs.values()].map((d) => distance(dir, d)));
    const key: [number, number, number] = [near, list.rank, dir.length];
    if (!best || key[0] < best.key[0] || (key[0] === best.key[0] && (key[1] < best.key[1] || (key[1] === best.key[1] && key[2] < best.key[2])))) {
      best = { entry: f.path, names: list.names, ...(list.kpt ? { kpt: list.kpt } : {}), key };
    }
  }
  return best && { entry: best.entry, names: best.names, ...(best.kpt ? { kpt: best.kpt } : {}) };
}

/**
 * A YOLO label file: a .txt that is not a class list (classes.txt, labels.txt of names), not a list file of
 * image paths (train.txt…), not DOTA, and has a line of numbers or is empty (an image with no objects).
 * A file with some bad lines among number lines is still one: its bad lines are reported, not the file
 * ignored. README and other prose hold no line of numbers alone.
 */
export function isYoloLabelFile(path: string, text: string): boolean {
  const name = baseName(path).toLowerCase();
  if (!name.endsWith('.txt') || name === 'classes.txt') return false;
  const lines = linesOf(text).map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return !LIST_FILE.test(name);
  if (lines.some((l) => PATH_LIKE.test(l)) || isDota(path, text)) return false;
  return lines.some(isLabelLine);
}

/** Fractions a little outside 0–1 are rounding (the importer clamps them); beyond this they are wrong. */
const FRACTION_MIN = -1;
const FRACTION_MAX = 2;

/**
 * A YOLO label file (Ultralytics, Darknet, Roboflow, CVAT, X-AnyLabeling), one per image: `c cx cy w h`
 * (box; a 6th value, a prediction's confidence, is ignored), `c x1 y1 … x4 y4` (OBB: a quad), `c x1 y1 …` with
 * 6 or more even values (segment): all fractions of the image size (normalized). A line that is not numbers,
 * a fraction far outside 0–1 or a negative size is a badField with its line; a class the list lacks is
 * skipped as unknownClass, and without a class list every line is skipped as noClassList.
 */
export async function parseYolo(entry: string, text: string, names: string[] | null, out: Parsed, kpt?: KeypointShape): Promise<void> {
  out.files.set(entry, 'yolo');
  const image = imageRefOf(entry, /^labels$/i);
  out.images.add(image);
  const maxPoints = LabelingLimits.polygonPointsMax;
  let noClass = 0;
  let keypoints = 0;
  const unknown = new Map<number, number>();
  const poseValues = kpt ? 4 + kpt[0] * kpt[1] : -1;
  for (const [i, raw] of linesOf(text.replace(/^\uFEFF/, '')).entries()) {
    if (i % 1000 === 999) await breathe();
    const line = raw.trim();
    if (!line) continue;
    const at = `line ${i + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length > 2 * maxPoints + 1) {
      tooManyPoints(out, entry, maxPoints);
      continue;
    }
    if (!fields.every(isNumber)) {
      badField(out, entry, at, 'yoloLine');
      continue;
    }
    const [cls, ...v] = fields.map(Number) as [number, ...number[]];
    if (!Number.isInteger(cls) || cls < 0 || cls > 1_000_000) {
      badField(out, entry, at, 'classIndex');
      continue;
    }
    // A pose line (kpt_shape in the dataset YAML): the box, then keypoints, which are points Loupe does not train on.
    const pose = v.length === poseValues;
    if (pose) keypoints += visibleKeypoints(v.slice(4), kpt!);
    const geometry = geometryOf(pose ? v.slice(0, 4) : v);
    if (!geometry) {
      badField(out, entry, at, 'yoloLine');
      continue;
    }
    if (names === null) {
      noClass += 1;
      continue;
    }
    const label = names[cls];
    if (!label) {
      unknown.set(cls, (unknown.get(cls) ?? 0) + 1);
      continue;
    }
    out.annotations.push({ entry, image, label, geometry, normalized: true, ...(v.length === 8 ? { quad: true } : {}) });
  }
  if (noClass > 0) skip(out, entry, 'noClassList', undefined, noClass);
  if (keypoints > 0) skip(out, entry, 'point', undefined, keypoints);
  for (const [index, n] of unknown) skip(out, entry, 'unknownClass', { index, count: names?.length ?? 0 }, n);
}

/** Keypoints a pose line labels: with a visibility value, those above 0; without, those not at (0, 0). */
function visibleKeypoints(v: number[], [n, d]: KeypointShape): number {
  let count = 0;
  for (let k = 0; k < n; k++) {
    const [x, y, vis] = [v[k * d]!, v[k * d + 1]!, d === 3 ? v[k * d + 2]! : 1];
    if (vis > 0 && (x !== 0 || y !== 0)) count += 1;
  }
  return count;
}

/** The shape a line's values (after the class) state, in fractions, or null when they state none. */
function geometryOf(v: number[]): Geometry | null {
  if (!v.every((x) => x >= FRACTION_MIN && x <= FRACTION_MAX)) return null;
  if (v.length === 4 || v.length === 5) {
    const [cx, cy, w, h] = v as [number, number, number, number];
    if (w <= 0 || h <= 0) return null;
    return { kind: 'box', x1: cx - w / 2, y1: cy - h / 2, x2: cx + w / 2, y2: cy + h / 2 };
  }
  if (v.length < 6 || v.length % 2 !== 0) return null;
  const points: [number, number][] = [];
  for (let k = 0; k + 1 < v.length; k += 2) points.push([v[k]!, v[k + 1]!]);
  return { kind: 'polygon', points };
}

// Seven decimals: 0.001 px on a 10,000 px image, where Ultralytics' six would be 0.005 px.
const frac = (v: number) => String(Math.round(v * 1e7) / 1e7);

/**
 * Ultralytics layout: images/, labels/<stem>.txt, classes.txt and data.yaml (names as a quoted index map).
 * Boxes are 5-value lines, rotated boxes OBB lines (their four corners in order), polygons segment lines;
 * OCR text has no place in YOLO and is not written.
 */
export const yoloWriter: Writer = {
  imageDir: 'images/',
  files(images, labels) {
    const txt = images.map((img) => ({
      path: `labels/${stemOf(img.file)}.txt`,
      data: Buffer.from(
        img.annotations
          .map((a) => {
            const g = toExportable(a.geometry);
            if (g.kind === 'polygon') return [a.labelIndex, ...g.points.flatMap(([x, y]) => [frac(x / img.width), frac(y / img.height)])].join(' ');
            const b = boundsOf(g);
            return [a.labelIndex, frac((b.x1 + b.x2) / 2 / img.width), frac((b.y1 + b.y2) / 2 / img.height), frac((b.x2 - b.x1) / img.width), frac((b.y2 - b.y1) / img.height)].join(' ');
          })
          .map((l) => `${l}\n`)
          .join(''),
      ),
    }));
    const yaml = toYaml({ path: '.', train: 'images', val: 'images', nc: labels.length, names: new Map(labels.map((l, i) => [i, l])) }, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
    return [...txt, { path: 'classes.txt', data: Buffer.from(labels.map((l) => `${l}\n`).join('')) }, { path: 'data.yaml', data: Buffer.from(yaml) }];
  },
};
