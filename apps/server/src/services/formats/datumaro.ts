import { LabelingLimits, type Geometry } from '@loupe/contracts';
import type { ZipText } from './zip-read.js';
import { decodeRleCrop, maskToPolygons, MaskError, type MaskCrop } from './mask.js';
import { addShape, badField, breathe, isCoord, isList, isObject, round, skip, stemOf, validGeometry, type Expected, type Parsed, type ParsedAnnotation, type Writer } from './types.js';

/**
 * Datumaro's JSON (`annotations/<subset>.json`), as Datumaro 0.x/1.x and CVAT's "Datumaro 1.0" export write it:
 * `{dm_format_version?, media_type?, info | infos, categories: {label: {labels: [{name, parent, attributes}]}, …},
 * items: [{id, annotations, attr?, image?: {path, size: [h, w]}, media?: {path}, point_cloud?}]}`. COCO's
 * `categories` is a list and LabelMe has `shapes`: neither is claimed.
 */
export function isDatumaro(json: unknown): boolean {
  if (!isObject(json) || !Array.isArray(json.items) || 'shapes' in json || 'images' in json) return false;
  return isObject(json.categories) || typeof json.dm_format_version === 'string';
}

type Shape = Pick<ParsedAnnotation, 'geometry' | 'moreParts' | 'converted'>;
type Bad = { field: string; expected: Expected };
type Read = Shape | Bad | 'tooMany' | null;

const flat = (v: unknown): v is ArrayLike<number> => isList(v) && v.every(isCoord);

/** `attributes.rotation` in degrees (CVAT writes it on boxes and ellipses, 0.0 when not turned). */
function rotationOf(a: Record<string, unknown>, at: string): number | Bad {
  const r = isObject(a.attributes) ? a.attributes.rotation : undefined;
  if (r === undefined || r === null) return 0;
  return isCoord(r) ? r : { field: `${at}.attributes.rotation`, expected: 'number' };
}

function bbox(a: Record<string, unknown>, at: string): Read {
  if (!flat(a.bbox) || a.bbox.length !== 4) return { field: `${at}.bbox`, expected: 'bbox' };
  const [x, y, w, h] = Array.from(a.bbox);
  const rotation = rotationOf(a, at);
  if (typeof rotation !== 'number') return rotation;
  // CVAT's Datumaro export writes a rotated rectangle as its unrotated bbox and turns it about the centre, and
  // `rotation: 0.0` on every rectangle: only Loupe's `rotated` mark keeps a rotated box at 0° one.
  const rotated = rotation !== 0 || (isObject(a.attributes) && a.attributes.rotated === true);
  const geometry: Geometry =
    !rotated ? { kind: 'box', x1: x!, y1: y!, x2: x! + w!, y2: y! + h! } : { kind: 'rbox', cx: x! + w! / 2, cy: y! + h! / 2, w: w!, h: h!, angle: rotation };
  return validGeometry(geometry) ? { geometry } : { field: `${at}.bbox`, expected: 'bbox' };
}

function polygon(a: Record<string, unknown>, at: string): Read {
  const p = a.points;
  if (!flat(p) || p.length % 2 !== 0 || p.length < 6) return { field: `${at}.points`, expected: 'flatPoints' };
  if (p.length > 2 * LabelingLimits.polygonPointsMax) return 'tooMany';
  const points: [number, number][] = [];
  for (let i = 0; i + 1 < p.length; i += 2) points.push([p[i]!, p[i + 1]!]);
  const geometry: Geometry = { kind: 'polygon', points };
  return validGeometry(geometry) ? { geometry } : { field: `${at}.points`, expected: 'flatPoints' };
}

/** Datumaro's ellipse: `points` [x1, y1, x2, y2], its bounding box, turned by `rotation` about the centre. */
function ellipse(a: Record<string, unknown>, at: string): Read {
  const p = a.points;
  if (!flat(p) || p.length !== 4) return { field: `${at}.points`, expected: 'corners' };
  const [x1, y1, x2, y2] = Array.from(p) as [number, number, number, number];
  const rx = Math.abs(x2 - x1) / 2;
  const ry = Math.abs(y2 - y1) / 2;
  if (!(rx > 0 && ry > 0)) return { field: `${at}.points`, expected: 'positiveSize' };
  const rotation = rotationOf(a, at);
  if (typeof rotation !== 'number') return rotation;
  const [cx, cy] = [(x1 + x2) / 2, (y1 + y2) / 2];
  // Chords stray at most half a pixel from the ellipse; a multiple of 4 keeps the four extremes as vertices, so
  // the polygon's bounds are the ellipse's own.
  const n = 4 * Math.ceil(Math.min(128, Math.max(16, Math.ceil(Math.PI / Math.acos(Math.max(-1, 1 - 0.5 / Math.max(rx, ry)))))) / 4);
  const t = (rotation * Math.PI) / 180;
  const points = Array.from({ length: n }, (_, i): [number, number] => {
    const u = (2 * Math.PI * i) / n;
    const [x, y] = [rx * Math.cos(u), ry * Math.sin(u)];
    return [cx + x * Math.cos(t) - y * Math.sin(t), cy + x * Math.sin(t) + y * Math.cos(t)];
  });
  return { geometry: { kind: 'polygon', points }, converted: 'circleToPolygon' };
}

/** `rle` as pycocotools writes it (Datumaro: compressed counts), or uncompressed counts: one polygon per island. */
async function mask(a: Record<string, unknown>, at: string): Promise<Read> {
  const rle = a.rle;
  const field = `${at}.rle`;
  if (!isObject(rle) || !(typeof rle.counts === 'string' || isList(rle.counts)) || !isList(rle.size)) return { field, expected: 'rle' };
  let crop: MaskCrop | null;
  try {
    crop = await decodeRleCrop({ size: Array.from(rle.size) as [number, number], counts: rle.counts as string | ArrayLike<number> });
  } catch (e) {
    if (e instanceof MaskError) return { field, expected: 'rle' };
    throw e;
  }
  const polygons = crop ? await maskToPolygons(crop.mask, crop.w, crop.h, LabelingLimits.polygonPointsMax) : [];
  if (!crop || polygons.length === 0) return null;
  const { left, top } = crop;
  const [first, ...rest] = polygons.map((pts): Geometry => ({ kind: 'polygon', points: pts.map(([x, y]) => [x + left, y + top]) }));
  return { geometry: first!, ...(rest.length ? { moreParts: rest } : {}), converted: 'maskToPolygon' };
}

const READERS: Record<string, (a: Record<string, unknown>, at: string) => Read | Promise<Read>> = { bbox, polygon, ellipse, mask };
const SKIPPED = { points: 'point', polyline: 'line' } as const;

/** The OCR text CVAT users keep in a `text` (or `ocr`, `transcription`) attribute. */
function textOf(a: Record<string, unknown>): string | undefined {
  const attrs = a.attributes;
  if (!isObject(attrs)) return undefined;
  return [attrs.text, attrs.ocr, attrs.transcription].find((v): v is string => typeof v === 'string' && v !== '');
}

/**
 * The image an item names: `image.path` (or `media.path`) as written, else the item id (the path without its
 * extension; the importer matches by stem). Datumaro 1.x writes absolute paths when it saved the images: the id
 * with the path's extension is the part that means something then.
 */
function imageOf(item: Record<string, unknown>, id: string): string {
  const media = [item.image, item.media].find((m) => isObject(m) && typeof m.path === 'string' && m.path.trim() !== '') as { path: string } | undefined;
  if (!media) return id;
  const path = media.path.trim().replace(/\\/g, '/');
  if (!/^(\/|[a-z]:\/)/i.test(path)) return path;
  const name = path.slice(path.lastIndexOf('/') + 1);
  return `${id}${name.slice(stemOf(name).length)}`;
}

/** Label names by label_id: entries that are not a named label stay holes (their ids are then reported). */
function labelsOf(json: Record<string, unknown>, entry: string, out: Parsed): (string | undefined)[] {
  const cats = json.categories;
  if (cats === undefined) return [];
  if (!isObject(cats)) return (badField(out, entry, 'categories', 'object'), []);
  if (cats.label === undefined) return [];
  const labels = isObject(cats.label) ? cats.label.labels : undefined;
  if (!Array.isArray(labels)) return (badField(out, entry, 'categories.label.labels', 'list'), []);
  return labels.map((l, j) => {
    const name = isObject(l) ? l.name : undefined;
    if (typeof name === 'string' && name.trim() !== '') return name;
    badField(out, entry, `categories.label.labels[${j}].name`, 'text');
    return undefined;
  });
}

/**
 * Datumaro JSON: bbox (with CVAT's `rotation` attribute: rotated boxes), polygon, ellipse (→ polygon) and mask
 * (→ one polygon per island) are shapes; `label` is an image-level class; points, polylines, captions,
 * cuboids, skeletons and any other type are skipped by reason. Each subset file stands alone (label ids are
 * per file). A malformed place is reported with its path in the file; the rest still counts.
 */
export async function parseDatumaro(entry: string, json: unknown, out: Parsed): Promise<void> {
  out.files.set(entry, 'datumaro');
  if (!isObject(json) || !Array.isArray(json.items)) return badField(out, entry, 'items', 'list');
  const labels = labelsOf(json, entry, out);
  for (const [i, item] of json.items.entries()) {
    await breathe();
    const at = `items[${i}]`;
    const id = isObject(item) ? item.id : undefined;
    if (!isObject(item) || !((typeof id === 'string' && id.trim() !== '') || (typeof id === 'number' && Number.isFinite(id)))) {
      badField(out, entry, `${at}.id`, 'text');
      continue;
    }
    const image = imageOf(item, String(id).trim().replace(/\\/g, '/'));
    // A point-cloud frame (Datumaro 3D) names no image: its cuboids are reported, no image is looked for.
    if (!isObject(item.point_cloud) || isObject(item.image)) out.images.add(image);
    if (item.annotations === undefined) continue;
    if (!Array.isArray(item.annotations)) {
      badField(out, entry, `${at}.annotations`, 'list');
      continue;
    }
    for (const [k, a] of item.annotations.entries()) {
      const place = `${at}.annotations[${k}]`;
      if (!isObject(a)) {
        badField(out, entry, place, 'object');
        continue;
      }
      const type = a.type;
      if (typeof type !== 'string') {
        // Datumaro writes and reads the type's name; a number means one enum or the other (0.x counted from
        // 1, 1.x from 0), so it is named rather than guessed.
        if (typeof type === 'number') skip(out, entry, 'unsupportedShape', { kind: `type ${type}` });
        else badField(out, entry, `${place}.type`, 'text');
        continue;
      }
      if (type in SKIPPED) {
        skip(out, entry, SKIPPED[type as keyof typeof SKIPPED]);
        continue;
      }
      const read = READERS[type];
      if (type !== 'label' && !read) {
        skip(out, entry, 'unsupportedShape', { kind: type });
        continue;
      }
      if (a.label_id === undefined || a.label_id === null) {
        skip(out, entry, 'noLabel');
        continue;
      }
      const label = typeof a.label_id === 'number' && Number.isInteger(a.label_id) ? labels[a.label_id] : undefined;
      if (label === undefined) {
        badField(out, entry, `${place}.label_id`, 'categoryRef');
        continue;
      }
      if (type === 'label') {
        out.classes.push({ entry, image, label });
        continue;
      }
      addShape(out, entry, image, label, await read!(a, place), textOf(a));
    }
  }
}

/** Item ids are unique per subset: a second image with the same stem keeps its extension in the id. */
function itemIds(files: string[]): string[] {
  const seen = new Set<string>();
  return files.map((f) => {
    const stem = f.slice(0, f.length - (f.split('/').pop()!.length - stemOf(f).length));
    const id = seen.has(stem) ? f : stem;
    seen.add(id);
    return id;
  });
}

/**
 * A Datumaro dataset as `datum` lays it out: `annotations/default.json` and `images/default/<file>`. Rotated
 * boxes are bboxes of the unrotated box with a `rotation` attribute (as CVAT writes them) and `rotated: true` (a
 * rotated box at 0° stays one), OCR text a `text` attribute.
 */
export const datumaroWriter: Writer = {
  imageDir: 'images/default/',
  files(images, labels): ZipText[] {
    const ids = itemIds(images.map((img) => img.file));
    let annId = 0;
    const doc = {
      dm_format_version: '1.0',
      media_type: 2,
      infos: {},
      categories: {
        label: { labels: labels.map((name) => ({ name, parent: '', attributes: [] })), label_groups: [], attributes: ['occluded'] },
      },
      items: images.map((img, i) => ({
        id: ids[i],
        annotations: img.annotations.map((a) => {
          const g = a.geometry;
          const attributes: Record<string, unknown> = { occluded: false };
          if (g.text !== undefined) attributes.text = g.text;
          const common = { id: annId++, type: g.kind === 'polygon' ? 'polygon' : 'bbox', attributes, group: 0, label_id: a.labelIndex, z_order: 0 };
          if (g.kind === 'polygon') return { ...common, points: g.points.flatMap(([x, y]) => [round(x, 4), round(y, 4)]) };
          if (g.kind === 'box') return { ...common, bbox: [g.x1, g.y1, g.x2 - g.x1, g.y2 - g.y1].map((n) => round(n, 4)) };
          attributes.rotation = round(g.angle, 4);
          attributes.rotated = true;
          return { ...common, bbox: [g.cx - g.w / 2, g.cy - g.h / 2, g.w, g.h].map((n) => round(n, 4)) };
        }),
        attr: { frame: i },
        image: { path: img.file, size: [img.height, img.width] },
        media: { path: img.file },
      })),
    };
    return [{ path: 'annotations/default.json', data: Buffer.from(JSON.stringify(doc)) }];
  },
};
