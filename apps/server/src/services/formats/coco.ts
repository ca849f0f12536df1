import { LabelingLimits, type Geometry } from '@loupe/contracts';
import type { ZipText } from './zip-read.js';
import { decodeRleCrop, maskToPolygons, MaskError, type MaskCrop } from './mask.js';
import { badField, boundsOf, breathe, isCoord, isList, isObject, round, skip, toExportable, tooManyPoints, validGeometry, type Expected, type Parsed, type Writer } from './types.js';

interface CocoFile {
  images: unknown[];
  annotations?: unknown;
  categories: unknown[];
}

/**
 * COCO detection/segmentation JSON as pycocotools, Roboflow, CVAT, Label Studio and Datumaro write it: images and
 * categories lists; `annotations` may be absent in a file that lists images without any.
 */
export function isCoco(json: unknown): json is CocoFile {
  return isObject(json) && Array.isArray(json.images) && Array.isArray(json.categories) && (json.annotations === undefined || Array.isArray(json.annotations));
}

const isId = (v: unknown): v is number | string => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v !== '');
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
/** The first of `checks` that `v` fails, as [place, expected]; null when all hold. */
function firstBad(v: unknown, checks: Record<string, (x: unknown) => boolean>): [string, Expected] | null {
  if (!isObject(v)) return ['', 'object'];
  for (const [k, ok] of Object.entries(checks)) if (!ok(v[k])) return [`.${k}`, k === 'id' ? 'number' : 'text'];
  return null;
}
/** Ids are matched as text: a file with image id 3 and image_id "3" means the same image. */
const key = (v: number | string) => String(v);

/** Loupe's OCR `text`, or the text attribute CVAT's and Label Studio's COCO exports carry. */
function textOf(a: Record<string, unknown>): string | undefined {
  if (typeof a.text === 'string') return a.text;
  const attrs = a.attributes;
  if (!isObject(attrs)) return undefined;
  const t = [attrs.text, attrs.ocr, attrs.transcription].find((v) => typeof v === 'string' && v !== '');
  return t as string | undefined;
}

/** Shapes of one annotation: the first part, further parts, and how the parser changed the kind. */
type Shape = { geometry: Geometry; moreParts?: Geometry[]; converted?: 'maskToPolygon' } | { bad: string; expected: Expected } | { tooMany: true } | null;

function polygonParts(seg: unknown[], at: string, maxPoints: number): Shape {
  const parts: Geometry[] = [];
  for (const part of seg) {
    if (!isList(part) || part.length % 2 !== 0 || !part.every(isCoord)) return { bad: `${at}.segmentation`, expected: 'flatPoints' };
    if (part.length > 2 * maxPoints) return { tooMany: true };
    // Tools write degenerate slivers (two points) beside the real parts; they hold no area and are left out.
    if (part.length < 6) continue;
    const points: [number, number][] = [];
    for (let i = 0; i + 1 < part.length; i += 2) points.push([part[i] as number, part[i + 1] as number]);
    parts.push({ kind: 'polygon', points });
  }
  if (parts.length === 0) return null;
  return { geometry: parts[0]!, ...(parts.length > 1 ? { moreParts: parts.slice(1) } : {}) };
}

async function maskParts(seg: Record<string, unknown>, at: string, maxPoints: number): Promise<Shape> {
  let crop: MaskCrop | null;
  try {
    crop = await decodeRleCrop(seg as { size: [number, number]; counts: string });
  } catch (e) {
    if (e instanceof MaskError) return { bad: `${at}.segmentation`, expected: 'rle' };
    throw e;
  }
  const polygons = crop ? await maskToPolygons(crop.mask, crop.w, crop.h, maxPoints) : [];
  if (!crop || polygons.length === 0) return null;
  const { left, top } = crop;
  const [first, ...rest] = polygons.map((pts): Geometry => ({ kind: 'polygon', points: pts.map(([x, y]) => [x + left, y + top]) }));
  return { geometry: first!, ...(rest.length ? { moreParts: rest } : {}), converted: 'maskToPolygon' };
}

function bboxOf(a: Record<string, unknown>): Geometry | null {
  if (!Array.isArray(a.bbox) || a.bbox.length !== 4 || !a.bbox.every(isCoord)) return null;
  const [x, y, w, h] = a.bbox as [number, number, number, number];
  const g: Geometry = { kind: 'box', x1: x, y1: y, x2: x + w, y2: y + h };
  return validGeometry(g) ? g : null;
}

/** Loupe's own extension for rotated boxes: `rbox: [cx, cy, w, h, angle°]` beside the polygon other tools read. */
function rboxOf(a: Record<string, unknown>): Geometry | null {
  if (!Array.isArray(a.rbox) || a.rbox.length !== 5 || !a.rbox.every(isCoord)) return null;
  const [cx, cy, w, h, angle] = a.rbox as [number, number, number, number, number];
  const g: Geometry = { kind: 'rbox', cx, cy, w, h, angle };
  return validGeometry(g) ? g : null;
}

/** The annotation's shape: rbox extension, else segmentation (polygons or an RLE mask), else bbox. */
async function shapeOf(a: Record<string, unknown>, at: string, maxPoints: number): Promise<Shape> {
  if (a.rbox !== undefined) {
    const rbox = rboxOf(a);
    return rbox ? { geometry: rbox } : { bad: `${at}.rbox`, expected: 'number' };
  }
  const seg = a.segmentation;
  let fromSeg: Shape = null;
  if (Array.isArray(seg) && seg.length > 0) fromSeg = polygonParts(seg, at, maxPoints);
  else if (isObject(seg)) fromSeg = await maskParts(seg, at, maxPoints);
  else if (seg !== undefined && seg !== null && !Array.isArray(seg)) return { bad: `${at}.segmentation`, expected: 'flatPoints' };
  if (fromSeg) return fromSeg;
  // An empty polygon list, or a mask with nothing in it: the bbox still says where the object is.
  const box = bboxOf(a);
  if (box) return { geometry: box };
  if (isObject(seg)) return { bad: `${at}.segmentation`, expected: 'rle' };
  if (Array.isArray(seg) && seg.length > 0) return { bad: `${at}.segmentation`, expected: 'flatPoints' };
  return { bad: `${at}.bbox`, expected: 'bbox' };
}

const hasKeypoints = (a: Record<string, unknown>) => isList(a.keypoints) && a.keypoints.length >= 3;

/**
 * COCO JSON: polygon segmentations (every part: the first in geometry, the rest in moreParts), RLE masks
 * (compressed or not, iscrowd 0 or 1) traced into polygons, bbox-only annotations as boxes, Loupe's `rbox`
 * extension as rotated boxes, keypoints as 'point' skips. Ids may be 0 or strings; file_name keeps its folders.
 * Anything of the wrong shape (null for an object, strings or NaN for numbers, negative sizes, unknown ids) is
 * reported with the file and the field, and the rest of the file still counts. Ids are per file.
 */
export async function parseCoco(entry: string, coco: CocoFile, out: Parsed): Promise<void> {
  out.files.set(entry, 'coco');
  const images = new Map<string, string>();
  for (const [i, img] of coco.images.entries()) {
    const bad = firstBad(img, { id: isId, file_name: isText });
    if (bad || !isObject(img)) {
      badField(out, entry, `images[${i}]${bad![0]}`, bad![1]);
      continue;
    }
    const name = (img.file_name as string).trim().replace(/\\/g, '/');
    images.set(key(img.id as string), name);
    out.images.add(name);
  }
  const cats = new Map<string, string>();
  for (const [i, c] of coco.categories.entries()) {
    const bad = firstBad(c, { id: isId, name: (v) => isText(v) || isCoord(v) });
    if (bad || !isObject(c)) {
      badField(out, entry, `categories[${i}]${bad![0]}`, bad![1]);
      continue;
    }
    cats.set(key(c.id as string), String(c.name));
  }
  const annotations = coco.annotations ?? [];
  if (!Array.isArray(annotations)) return badField(out, entry, 'annotations', 'list');
  const maxPoints = LabelingLimits.polygonPointsMax;
  for (const [i, a] of annotations.entries()) {
    await breathe();
    const at = `annotations[${i}]`;
    if (!isObject(a)) {
      badField(out, entry, at, 'object');
      continue;
    }
    const image = isId(a.image_id) ? images.get(key(a.image_id)) : undefined;
    if (image === undefined) {
      badField(out, entry, `${at}.image_id`, 'imageRef');
      continue;
    }
    const label = isId(a.category_id) ? cats.get(key(a.category_id)) : undefined;
    if (label === undefined) {
      badField(out, entry, `${at}.category_id`, 'categoryRef');
      continue;
    }
    const noShape = a.bbox === undefined && a.rbox === undefined && (a.segmentation === undefined || (Array.isArray(a.segmentation) && a.segmentation.length === 0));
    if (noShape && hasKeypoints(a)) {
      skip(out, entry, 'point');
      continue;
    }
    const shape = await shapeOf(a, at, maxPoints);
    if (shape && 'tooMany' in shape) {
      tooManyPoints(out, entry, maxPoints);
      continue;
    }
    if (!shape || 'bad' in shape) {
      badField(out, entry, shape?.bad ?? `${at}.bbox`, shape?.expected ?? 'bbox');
      continue;
    }
    // A person's keypoints beside its box: the box is taken, the keypoints are named in the report.
    if (hasKeypoints(a)) skip(out, entry, 'point');
    const text = textOf(a);
    if (text !== undefined) shape.geometry.text = text;
    out.annotations.push({ entry, image, label, ...shape });
  }
}

const areaOf = (points: [number, number][]) => Math.abs(points.reduce((s, [x, y], i) => s + x * points[(i + 1) % points.length]![1] - points[(i + 1) % points.length]![0] * y, 0)) / 2;

export const cocoWriter: Writer = {
  imageDir: 'images/',
  files(images, labels): ZipText[] {
    let id = 0;
    const doc = {
      info: { description: 'Exported from Loupe', version: '1.0' },
      licenses: [],
      images: images.map((img, i) => ({ id: i + 1, file_name: img.file, width: img.width, height: img.height })),
      categories: labels.map((name, i) => ({ id: i + 1, name, supercategory: '' })),
      annotations: images.flatMap((img, i) =>
        img.annotations.map((a) => {
          const g = toExportable(a.geometry);
          const b = boundsOf(g);
          const r = a.geometry.kind === 'rbox' ? a.geometry : null;
          return {
            id: ++id,
            image_id: i + 1,
            category_id: a.labelIndex + 1,
            bbox: [round(b.x1), round(b.y1), round(b.x2 - b.x1), round(b.y2 - b.y1)],
            area: round(g.kind === 'polygon' ? areaOf(g.points) : (b.x2 - b.x1) * (b.y2 - b.y1)),
            iscrowd: 0,
            segmentation: g.kind === 'polygon' ? [g.points.flatMap(([x, y]) => [round(x), round(y)])] : [],
            ...(r ? { rbox: [round(r.cx), round(r.cy), round(r.w), round(r.h), round(r.angle, 4)] } : {}),
            ...(g.text !== undefined ? { text: g.text } : {}),
          };
        }),
      ),
    };
    return [{ path: 'annotations.json', data: Buffer.from(JSON.stringify(doc)) }];
  },
};
