import path from 'node:path';
import sharp from 'sharp';
import { ImageExtensions, LabelingLimits, Limits, type Geometry, type ImageKind } from '@loupe/contracts';
import { sniffKind } from '../gallery/probe.js';
import { maskToPolygons } from './mask.js';
import {
  badField,
  breathe,
  isCoord,
  isList,
  isObject,
  round,
  skip,
  stemOf,
  toExportable,
  tooManyPoints,
  type ConvertReason,
  type Expected,
  type Parsed,
  type ParsedAnnotation,
  type Writer,
} from './types.js';

/** A LabelMe (2017 3.x to 5.x) or X-AnyLabeling file, as far as detection needs; every field is checked in parseLabelMe. */
export interface LabelMeFile {
  shapes: unknown;
  imagePath?: unknown;
  imageData?: unknown;
  flags?: unknown;
}

/**
 * LabelMe's mark is `shapes` beside one of the fields every version writes: 3.x has imagePath, imageData and
 * lineColor but no version or size; 4.x and 5.x add version, flags and imageWidth; X-AnyLabeling writes the
 * same with imageData null. `shapes` of the wrong type still counts, so that the file is answered as malformed.
 */
export function isLabelMe(json: unknown): json is LabelMeFile {
  if (!isObject(json) || !('shapes' in json)) return false;
  return ['imagePath', 'imageData', 'imageWidth', 'imageHeight', 'version', 'lineColor', 'fillColor', 'flags'].some((k) => k in json);
}

type Pt = [number, number];

/**
 * LabelMe and X-AnyLabeling JSON, shapes as the file states them: `rectangle` (2 opposite corners, or the 4
 * corners X-AnyLabeling writes) → box, `rotation` → rotated box from its 4 corners, `polygon` → polygon,
 * `circle` (centre, point on the rim) → polygon, `description` (or X-AnyLabeling's `attributes.text`) → OCR
 * text, `mask` → polygons, ticked file-level flags → image classes. Points and lines are skipped by kind, and a
 * malformed field is named with its place, never thrown.
 */
export async function parseLabelMe(entry: string, file: LabelMeFile, out: Parsed): Promise<void> {
  out.files.set(entry, 'labelme');
  if (!Array.isArray(file.shapes)) return badField(out, entry, 'shapes', 'list');
  if (file.imagePath !== undefined && file.imagePath !== null && typeof file.imagePath !== 'string') return badField(out, entry, 'imagePath', 'text');
  const image = imageRef(entry, file.imagePath ?? '');
  out.images.add(image);
  embedded(entry, file, out);
  // labelme's image classification: `--flags cat,dog` ticks image-level flags (classes on classification models).
  if (isObject(file.flags)) for (const [flag, on] of Object.entries(file.flags)) if (on === true && flag.trim()) out.classes.push({ entry, image, label: flag });
  for (const [i, s] of file.shapes.entries()) {
    if (i % 1000 === 999) await breathe();
    await shape(entry, image, s, `shapes[${i}]`, out);
  }
}

async function shape(entry: string, image: string, s: unknown, at: string, out: Parsed): Promise<void> {
  if (!isObject(s)) return badField(out, entry, at, 'object');
  const type = s.shape_type ?? 'polygon'; // 3.x files have no shape_type: every shape was a polygon
  if (typeof type !== 'string') return badField(out, entry, `${at}.shape_type`, 'text');
  const kind = type.trim().toLowerCase();
  if (kind === 'point' || kind === 'points') return skip(out, entry, 'point');
  if (kind === 'line' || kind === 'linestrip' || kind === 'polyline') return skip(out, entry, 'line');
  if (!['rectangle', 'rotation', 'polygon', 'circle', 'mask'].includes(kind)) return skip(out, entry, 'unsupportedShape', { kind: type.slice(0, 40) });
  if (typeof s.label !== 'string' && typeof s.label !== 'number') return badField(out, entry, `${at}.label`, 'text');
  const label = String(s.label);
  if (!label.trim()) return skip(out, entry, 'noLabel');
  const pts = points(entry, s.points, `${at}.points`, out);
  if (!pts) return;
  const made = kind === 'mask' ? await maskGeometry(s.mask, pts) : geometry(kind, pts);
  if (made === 'invalid') return skip(out, entry, 'invalid');
  if (!('geometry' in made)) return badField(out, entry, `${at}.${made.field ?? 'points'}`, made.expected);
  const text = typeof s.description === 'string' && s.description ? s.description : isObject(s.attributes) && typeof s.attributes.text === 'string' && s.attributes.text ? s.attributes.text : undefined;
  if (text !== undefined) made.geometry.text = text;
  const a: ParsedAnnotation = { entry, image, label, geometry: made.geometry };
  if (made.moreParts?.length) a.moreParts = made.moreParts;
  if (made.quad) a.quad = true;
  if (made.converted) a.converted = made.converted;
  if (s.difficult === true) a.difficult = true;
  out.annotations.push(a);
}

/** [[x, y], …] within Limits; null (reported) otherwise. */
function points(entry: string, v: unknown, at: string, out: Parsed): Pt[] | null {
  if (!Array.isArray(v)) return (badField(out, entry, at, 'points'), null);
  if (v.length > LabelingLimits.polygonPointsMax) return (tooManyPoints(out, entry, LabelingLimits.polygonPointsMax), null);
  const pts: Pt[] = [];
  for (const [k, p] of v.entries()) {
    if (!isList(p) || p.length < 2 || !isCoord(p[0]) || !isCoord(p[1])) return (badField(out, entry, `${at}[${k}]`, 'points'), null);
    pts.push([p[0], p[1]]);
  }
  return pts;
}

type Made = { geometry: Geometry; moreParts?: Geometry[]; quad?: boolean; converted?: ConvertReason } | { expected?: Expected; field?: string } | 'invalid';

function geometry(kind: string, pts: Pt[]): Made {
  if (kind === 'rectangle') {
    if (pts.length !== 2 && pts.length !== 4) return { expected: 'points' };
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const box = { kind: 'box' as const, x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
    // X-AnyLabeling's four corners lie on two x and two y values; four that do not are a turned quadrilateral.
    const onEdges = pts.every(([x, y]) => (x === box.x1 || x === box.x2) && (y === box.y1 || y === box.y2));
    return onEdges ? { geometry: box } : { geometry: { kind: 'polygon', points: pts }, quad: true };
  }
  if (kind === 'rotation') return pts.length === 4 ? { geometry: rboxFromCorners(pts as [Pt, Pt, Pt, Pt]) } : { expected: 'corners' };
  if (kind === 'circle') {
    if (pts.length !== 2) return { expected: 'points' };
    const [[cx, cy], [rx, ry]] = pts as [Pt, Pt];
    const r = Math.hypot(rx - cx, ry - cy);
    return r > 0 ? { geometry: { kind: 'polygon', points: circle(cx, cy, r) }, converted: 'circleToPolygon' } : 'invalid';
  }
  return pts.length >= 3 ? { geometry: { kind: 'polygon', points: pts } } : 'invalid';
}

/**
 * labelme 5.x `mask` shapes: a PNG (base64) of 0/1 over the rectangle from points[0], truncated to whole
 * pixels as labelme pastes it (`mask[y1:y2+1, x1:x2+1]`), traced into one polygon per island.
 */
async function maskGeometry(mask: unknown, pts: Pt[]): Promise<Made> {
  if (pts.length < 1) return { expected: 'points' };
  if (typeof mask !== 'string' || !mask || !BASE64.test(mask)) return { field: 'mask' };
  let raw: { data: Buffer; info: sharp.OutputInfo };
  try {
    raw = await sharp(Buffer.from(mask, 'base64'), { limitInputPixels: Limits.imageMaxPixels }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  } catch {
    return { field: 'mask' };
  }
  const { width: w, height: h } = raw.info;
  const [x0, y0] = [Math.trunc(pts[0]![0]), Math.trunc(pts[0]![1])];
  const parts = await maskToPolygons(new Uint8Array(raw.data.buffer, raw.data.byteOffset, w * h), w, h, LabelingLimits.polygonPointsMax);
  const polygons = parts.map((p): Geometry => ({ kind: 'polygon', points: p.map(([x, y]) => [x + x0, y + y0] as Pt) }));
  if (polygons.length === 0) return 'invalid';
  return { geometry: polygons[0]!, ...(polygons.length > 1 ? { moreParts: polygons.slice(1) } : {}), converted: 'maskToPolygon' };
}

/**
 * The corners are the truth (X-AnyLabeling's `direction` is derived from them): centre is their mean, width the
 * mean of edges 0→1 and 3→2, height of 1→2 and 0→3, angle the direction of 0→1 (Loupe's clockwise degrees).
 */
export function rboxFromCorners([a, b, c, d]: [Pt, Pt, Pt, Pt]): Geometry {
  const w = (Math.hypot(b[0] - a[0], b[1] - a[1]) + Math.hypot(c[0] - d[0], c[1] - d[1])) / 2;
  const h = (Math.hypot(c[0] - b[0], c[1] - b[1]) + Math.hypot(d[0] - a[0], d[1] - a[1])) / 2;
  const angle = (Math.atan2(b[1] - a[1] + (c[1] - d[1]), b[0] - a[0] + (c[0] - d[0])) * 180) / Math.PI;
  return { kind: 'rbox', cx: (a[0] + b[0] + c[0] + d[0]) / 4, cy: (a[1] + b[1] + c[1] + d[1]) / 4, w, h, angle };
}

/** Enough vertices that the chords stay within 0.5 px of the circle, up to the vertex limit. */
export function circle(cx: number, cy: number, r: number): Pt[] {
  const n = r <= 0.5 ? 8 : Math.min(LabelingLimits.polygonPointsMax, Math.max(8, Math.ceil(Math.PI / Math.acos(1 - 0.5 / r))));
  return Array.from({ length: n }, (_, k) => [cx + r * Math.cos((2 * Math.PI * k) / n), cy + r * Math.sin((2 * Math.PI * k) / n)] as Pt);
}

/**
 * imagePath is relative to the JSON's folder, written with either slash; an absolute one names the labeller's
 * disk, so only its name is kept. Empty, a folder, or the JSON itself: the JSON's own path without `.json`, for
 * the importer to match by stem. Only ever a name to match, never opened.
 */
export function imageRef(entry: string, imagePath: string): string {
  const p = imagePath.trim().replace(/\\/g, '/');
  const base = p.endsWith('/') ? '' : path.posix.basename(p);
  if (!base || base === '.' || base === '..' || /\.json$/i.test(base)) return entry.replace(/\.json$/i, '');
  if (p.startsWith('/') || /^[a-z]:/i.test(p)) return base;
  return path.posix.normalize(path.posix.join(path.posix.dirname(entry), p)).replace(/^(\.\.\/)+/, '');
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
const EXT: Record<ImageKind, string> = { jpeg: '.jpg', mpo: '.jpg', png: '.png', bmp: '.bmp', tiff: '.tif', webp: '.webp' };
const hasImageExt = (name: string) => ImageExtensions.some((e) => name.toLowerCase().endsWith(e));

/** imageData: base64 of the image file, handed to the importer (it adds the image when the model lacks it). */
function embedded(entry: string, file: LabelMeFile, out: Parsed): void {
  const v = file.imageData;
  if (v === undefined || v === null || v === '') return;
  const text = typeof v === 'string' ? v.replace(/^data:[^,]{0,100},/, '') : '';
  if (!text || text.length > (Limits.imageMaxBytes / 3) * 4 + 4 || !BASE64.test(text)) return badField(out, entry, 'imageData', 'text');
  const data = Buffer.from(text, 'base64');
  const kind = sniffKind(data.subarray(0, 65_536));
  if (!kind) return badField(out, entry, 'imageData');
  const base = typeof file.imagePath === 'string' ? path.posix.basename(file.imagePath.replace(/\\/g, '/')) : '';
  out.embedded.push({ entry, name: hasImageExt(base) ? base : stemOf(entry) + EXT[kind], data });
}

/** LabelMe 5.4.1 as labelme writes it; rotated boxes as X-AnyLabeling `rotation` shapes (4 corners + direction). */
export const labelMeWriter: Writer = {
  imageDir: '',
  files(images) {
    const used = new Set<string>();
    return images.map((img) => {
      // a.jpg and a.png both exist: the second keeps its extension in the JSON's name
      let name = `${stemOf(img.file)}.json`;
      if (used.has(name.toLowerCase())) name = `${path.posix.basename(img.file)}.json`;
      used.add(name.toLowerCase());
      const shapes = img.annotations.map((a) => {
        const g = toExportable(a.geometry);
        const rotated = a.geometry.kind === 'rbox';
        const points = g.kind === 'box' ? [[round(g.x1), round(g.y1)], [round(g.x2), round(g.y2)]] : g.points.map(([x, y]) => [round(x, 4), round(y, 4)]);
        const direction = a.geometry.kind === 'rbox' ? round(((((a.geometry.angle % 360) + 360) % 360) * Math.PI) / 180, 6) : undefined;
        return {
          label: a.label,
          points,
          group_id: null,
          description: g.text ?? '',
          shape_type: rotated ? 'rotation' : g.kind === 'box' ? 'rectangle' : 'polygon',
          flags: {},
          mask: null,
          ...(direction !== undefined ? { direction } : {}),
        };
      });
      const doc = { version: '5.4.1', flags: {}, shapes, imagePath: path.posix.basename(img.file), imageData: null, imageHeight: img.height, imageWidth: img.width };
      return { path: name, data: Buffer.from(JSON.stringify(doc, null, 2)) };
    });
  },
};
