import { baseName, breathe, badField, isCoord, round, stemOf, toExportable, type Parsed, type Writer } from './types.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const isNumber = (t: string) => NUMBER.test(t);
const linesOf = (text: string) => text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
/** DOTA v1.0/v1.5 labelTxt headers: `imagesource:GoogleEarth`, `gsd:0.146343590398` (or `gsd:null`). */
const HEADER = /^(imagesource|gsd)\s*:/i;

/** 8 corner values, a class name, and maybe a difficulty: what a DOTA object line looks like. */
const isDotaLine = (tokens: string[]) => (tokens.length === 9 || tokens.length === 10) && tokens.slice(0, 8).every(isNumber) && !isNumber(tokens[8]!);

/**
 * A DOTA label file (DOTA v1/v1.5/v2, mmrotate, DOTA_devkit, Roboflow): a .txt with the DOTA headers, or with
 * object lines `x1 y1 … x4 y4 class [difficult]` and no line of numbers alone (that would be YOLO).
 */
export function isDota(path: string, text: string): boolean {
  if (!/\.txt$/i.test(path)) return false;
  const lines = linesOf(text).map((l) => l.trim()).filter(Boolean);
  if (lines.some((l) => HEADER.test(l))) return true;
  const tokens = lines.map((l) => l.split(/\s+/));
  return tokens.some(isDotaLine) && !tokens.some((t) => t.every(isNumber));
}

/** The image a per-image label file describes: its path without `.txt`, the last label folder read as `images`. */
export function imageRefOf(entry: string, folder: RegExp): string {
  const parts = entry.replace(/\\/g, '/').replace(/\.txt$/i, '').split('/');
  for (let i = parts.length - 2; i >= 0; i--) {
    if (folder.test(parts[i]!)) {
      parts[i] = 'images';
      break;
    }
  }
  return parts.join('/');
}

/**
 * DOTA labelTxt: each object line is a four-corner polygon in pixels, meant as a (rotated) box (quad), its
 * class the 9th field (a name; several words are joined back), difficult 1 kept with `difficult: true`.
 * The image is the file's path without `.txt`, a `labelTxt…` folder read as `images` (DOTA's layout).
 */
export async function parseDota(entry: string, text: string, out: Parsed): Promise<void> {
  out.files.set(entry, 'dota');
  const image = imageRefOf(entry, /^labeltxt/i);
  out.images.add(image);
  for (const [i, raw] of linesOf(text).entries()) {
    if (i % 1000 === 999) await breathe();
    const line = raw.trim();
    if (!line || HEADER.test(line)) continue;
    const at = `line ${i + 1}`;
    const t = line.split(/\s+/);
    const values = t.slice(0, 8).map((v) => (isNumber(v) ? Number(v) : NaN));
    if (t.length < 9 || !values.every((v) => isCoord(v))) {
      badField(out, entry, at, 'corners');
      continue;
    }
    const last = t[t.length - 1]!;
    const hasDifficulty = t.length >= 10 && /^\d+$/.test(last);
    // Ten fields are class and difficulty; more are a class of several words, with or without a difficulty.
    if (t.length === 10 && !hasDifficulty) {
      badField(out, entry, at, 'number');
      continue;
    }
    const label = (hasDifficulty ? t.slice(8, -1) : t.slice(8)).join(' ');
    const points: [number, number][] = [0, 2, 4, 6].map((k) => [values[k]!, values[k + 1]!]);
    out.annotations.push({ entry, image, label, geometry: { kind: 'polygon', points }, quad: true, ...(hasDifficulty && Number(last) > 0 ? { difficult: true } : {}) });
  }
}

type Pt = [number, number];

function hull(points: Pt[]): Pt[] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: Pt[]) => {
    const h: Pt[] = [];
    for (const q of list) {
      while (h.length >= 2 && cross(h[h.length - 2]!, h[h.length - 1]!, q) <= 0) h.pop();
      h.push(q);
    }
    h.pop();
    return h;
  };
  return [...half(p), ...half([...p].reverse())];
}

/**
 * The smallest-area rectangle around a polygon (one side lies on a hull edge), as four corners clockwise on
 * screen, as DOTA lists them. DOTA holds only four-corner objects: a polygon of any other count is exported
 * as this rectangle, the rotated box that fits it best.
 */
export function minAreaRect(points: Pt[]): Pt[] {
  const h = hull(points);
  if (h.length < 3) {
    // Collinear points have no area: their bounds, which the importer refuses as invalid like any flat shape.
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const [x1, y1, x2, y2] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]];
  }
  let best: { area: number; corners: Pt[] } | null = null;
  for (let i = 0; i < h.length; i++) {
    const a = h[i]!;
    const b = h[(i + 1) % h.length]!;
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const u: Pt = [(b[0] - a[0]) / len, (b[1] - a[1]) / len];
    const v: Pt = [-u[1], u[0]];
    let [minU, maxU, minV, maxV] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const q of h) {
      const pu = q[0] * u[0] + q[1] * u[1];
      const pv = q[0] * v[0] + q[1] * v[1];
      [minU, maxU, minV, maxV] = [Math.min(minU, pu), Math.max(maxU, pu), Math.min(minV, pv), Math.max(maxV, pv)];
    }
    const area = (maxU - minU) * (maxV - minV);
    if (best && area >= best.area) continue;
    const at = (pu: number, pv: number): Pt => [pu * u[0] + pv * v[0], pu * u[1] + pv * v[1]];
    best = { area, corners: [at(minU, minV), at(maxU, minV), at(maxU, maxV), at(minU, maxV)] };
  }
  const c = best!.corners;
  // Clockwise on screen (y down) is a positive shoelace sum.
  const signed = c.reduce((s, p, k) => s + p[0] * c[(k + 1) % 4]![1] - c[(k + 1) % 4]![0] * p[1], 0);
  return signed >= 0 ? c : [c[0]!, c[3]!, c[2]!, c[1]!];
}

/** DOTA class names are one field: spaces in a label would split it, so they travel as underscores. */
const className = (label: string) => label.trim().replace(/\s+/g, '_');

/**
 * DOTA v1 layout: images/<file>, labelTxt/<stem>.txt with the two header lines (so an image with no objects
 * is still a DOTA file) and one `x1 y1 … x4 y4 class 0` line per shape. Boxes and rotated boxes are their four
 * corners clockwise; 4-point polygons go as they are; other polygons as their minimum-area rectangle (DOTA
 * has no other shape). OCR text has no place in DOTA and is not written.
 */
export const dotaWriter: Writer = {
  imageDir: 'images/',
  files: (images) =>
    images.map((img) => ({
      path: `labelTxt/${stemOf(baseName(img.file))}.txt`,
      data: Buffer.from(
        [
          'imagesource:Loupe',
          'gsd:null',
          ...img.annotations.map((a) => {
            const g = toExportable(a.geometry);
            const corners: Pt[] =
              g.kind === 'box'
                ? [[g.x1, g.y1], [g.x2, g.y1], [g.x2, g.y2], [g.x1, g.y2]]
                : g.points.length === 4
                  ? g.points
                  : minAreaRect(g.points);
            return [...corners.flatMap(([x, y]) => [round(x), round(y)]), className(a.label), 0].join(' ');
          }),
        ]
          .map((l) => `${l}\n`)
          .join(''),
      ),
    })),
};
