import path from 'node:path';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { circle } from './labelme.js';
import { MASK_PIXELS_MAX, maskToPolygons } from './mask.js';
import { badField, breathe, isCoord, isList, isObject, skip, toExportable, tooManyPoints, type Parsed, type ParsedAnnotation, type Writer } from './types.js';

/**
 * Label Studio's JSON export (1.x; 0.x wrote `completions`): a list of tasks `{ id, data: { image, … },
 * annotations: [{ result: [...] }], predictions }`, or one task; and its JSON-MIN export (one flat record per
 * task, each control's regions as a list of `value`s). Coordinates are percent of `original_width` /
 * `original_height`; a rectangle's (x, y) is its top-left corner and `rotation` turns it clockwise (image y
 * down) about that corner, as label-studio-converter's YOLO-OBB export reads it.
 */

type Pt = [number, number];
type Result = Record<string, unknown>;

const REGION_TYPES = ['rectangle', 'polygon', 'ellipse', 'keypoint', 'brush', 'polyline'];
/** JSON-MIN records: fields Label Studio adds beside the task's data and the controls' results. */
const MIN_META = new Set(['id', 'annotator', 'annotation_id', 'created_at', 'updated_at', 'lead_time']);
const regionType = (type: string) => REGION_TYPES.find((t) => type === t || type === `${t}labels`);
/** The region kind a value's own fields describe (a keypoint has x, y and a width, but no height). */
const shapeOf = (v: Record<string, unknown>) => ('points' in v ? 'polygon' : 'radiusX' in v ? 'ellipse' : 'x' in v && 'height' in v ? 'rectangle' : 'x' in v ? 'keypoint' : 'brush');
const hasGeometry = (v: unknown): v is Record<string, unknown> => isObject(v) && (('x' in v && 'y' in v) || 'points' in v || 'rle' in v);

const isTask = (v: unknown) => isObject(v) && isObject(v.data) && ('annotations' in v || 'predictions' in v || 'completions' in v) && !('images' in v) && !('shapes' in v);
/** A JSON-MIN record with at least one list of regions (a record of choices only is classes.ts' class list). */
const isMinRecord = (v: unknown) => isObject(v) && !isObject(v.data) && Object.values(v).some((x) => regionList(x) !== null);
/** A JSON-MIN control's regions: a list of region values (a lone one, written bare, counts as a list of one). */
const regionList = (v: unknown): Record<string, unknown>[] | null => (Array.isArray(v) && v.length > 0 && v.every(hasGeometry) ? v : hasGeometry(v) ? [v] : null);

export function isLabelStudio(json: unknown): boolean {
  if (isTask(json)) return true;
  return Array.isArray(json) && json.length > 0 && (json.some(isTask) || (json.some(isMinRecord) && json.every(isObject)));
}

/**
 * One file: the LAST annotation not cancelled of each task (Label Studio's latest), else nothing (predictions
 * are a model's guesses, not labels: the image is recorded with no shapes). Results sharing an `id` are one
 * region (the OCR template writes `rectangle` + `labels` + `textarea`): geometry from the region result, label
 * from its `*labels`/`labels`, OCR text from its `textarea`.
 */
export async function parseLabelStudio(entry: string, json: unknown, out: Parsed): Promise<void> {
  out.files.set(entry, 'labelstudio');
  const tasks = Array.isArray(json) ? json : [json];
  const at = (t: number) => (Array.isArray(json) ? `[${t}]` : '');
  for (const [t, task] of tasks.entries()) {
    if (t % 200 === 199) await breathe();
    if (!isObject(task)) {
      badField(out, entry, at(t) || '(root)', 'object');
      continue;
    }
    if (!isObject(task.data)) {
      await minRecord(entry, task, at(t), out);
      continue;
    }
    const image = imageOf(task.data);
    if (!image) {
      badField(out, entry, `${at(t)}.data.image`, 'text');
      continue;
    }
    out.images.add(image);
    const key = Array.isArray(task.annotations) ? 'annotations' : Array.isArray(task.completions) ? 'completions' : null;
    if (key === null) {
      if ('annotations' in task) badField(out, entry, `${at(t)}.annotations`, 'list');
      continue;
    }
    const list = task[key] as unknown[];
    let chosen = -1;
    for (let k = list.length - 1; k >= 0 && chosen < 0; k--) {
      const a = list[k];
      if (isObject(a) && a.was_cancelled !== true) chosen = k;
    }
    if (chosen < 0) continue;
    const result = (list[chosen] as Result).result;
    const place = `${at(t)}.${key}[${chosen}].result`;
    if (!Array.isArray(result)) {
      badField(out, entry, place, 'list');
      continue;
    }
    await regions(entry, image, result, (i) => `${place}[${i}]`, false, out);
  }
}

/** JSON-MIN: each control's regions as `value`s with the size beside them; a region's results share its geometry. */
async function minRecord(entry: string, rec: Record<string, unknown>, at: string, out: Parsed): Promise<void> {
  const image = imageOf(Object.fromEntries(Object.entries(rec).filter(([k]) => !MIN_META.has(k))));
  if (!image) return badField(out, entry, `${at}.image`, 'text');
  out.images.add(image);
  const results: Result[] = [];
  const places: string[] = [];
  for (const [name, v] of Object.entries(rec)) {
    if (MIN_META.has(name)) continue;
    if (isObject(v) && Array.isArray(v.choices)) {
      results.push({ type: 'choices', value: v });
      places.push(`${at}.${name}`);
    }
    const list = regionList(v);
    if (!list) continue;
    for (const [k, r] of list.entries()) {
      places.push(Array.isArray(v) ? `${at}.${name}[${k}]` : `${at}.${name}`);
      const type = ['rectanglelabels', 'polygonlabels', 'ellipselabels', 'keypointlabels', 'brushlabels', 'labels', 'choices'].find((k) => k in r) ?? ('text' in r ? 'textarea' : shapeOf(r));
      // No ids in JSON-MIN: the results of one region carry the same geometry, which stands for the id.
      const id = 'x' in r || 'points' in r ? JSON.stringify([r.x, r.y, r.width, r.height, r.radiusX, r.radiusY, r.rotation ?? 0, r.points]) : undefined;
      results.push({ type, value: r, original_width: r.original_width, original_height: r.original_height, ...(id ? { id } : {}) });
    }
  }
  await regions(entry, image, results, (i) => places[i]!, true, out);
}

interface Region {
  /** `at`: the result's place; `vat`: its value's (JSON-MIN records hold the value's fields themselves). */
  geo?: { type: string; r: Result; at: string; vat: string };
  labels: string[];
  text: string[];
  at: string;
}

async function regions(entry: string, image: string, results: unknown[], placeOf: (i: number) => string, min: boolean, out: Parsed): Promise<void> {
  const byId = new Map<string, Region>();
  const loose: { r: Result; type: string; at: string }[] = [];
  for (const [i, r] of results.entries()) {
    const at = placeOf(i);
    const vat = min ? at : `${at}.value`;
    if (!isObject(r)) {
      badField(out, entry, at, 'object');
      continue;
    }
    if (typeof r.type !== 'string') {
      badField(out, entry, `${at}.type`, 'text');
      continue;
    }
    const type = r.type.toLowerCase();
    if (type === 'relation') {
      skip(out, entry, 'unsupportedShape', { kind: 'relation' });
      continue;
    }
    if (!isObject(r.value)) {
      badField(out, entry, `${at}.value`, 'object');
      continue;
    }
    const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : `#${i}`;
    const region = byId.get(id) ?? { labels: [], text: [], at };
    byId.set(id, region);
    const labelKey = type.endsWith('labels') ? type : null;
    if (labelKey) {
      const names = r.value[labelKey];
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
        badField(out, entry, `${vat}.${labelKey}`, 'list');
        byId.delete(id);
        continue;
      }
      region.labels.push(...names);
    }
    if (type === 'textarea') {
      const text = r.value.text;
      const lines = typeof text === 'string' ? [text] : Array.isArray(text) ? text.filter((s): s is string => typeof s === 'string') : [];
      region.text.push(...lines);
    }
    if (regionType(type) && !region.geo) region.geo = { type: regionType(type)!, r, at, vat };
    else if (type === 'labels' && !region.geo && hasGeometry(r.value)) region.geo = { type: shapeOf(r.value), r, at, vat };
    if (!regionType(type) && !['labels', 'textarea', 'choices'].includes(type)) loose.push({ r, type, at });
    if (type === 'choices') loose.push({ r, type, at });
  }
  for (const region of byId.values()) if (region.geo) await shape(entry, image, region, out);
  for (const { r, type } of loose) {
    const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : undefined;
    // A per-region choice or rating (same id as a region) is an attribute of that region, not a shape.
    if (id !== undefined && byId.get(id)?.geo) continue;
    if (type !== 'choices') {
      skip(out, entry, 'unsupportedShape', { kind: type.slice(0, 40) });
      continue;
    }
    const choices = (r.value as Result).choices;
    if (Array.isArray(choices)) for (const c of choices) if (typeof c === 'string' && c.trim()) out.classes.push({ entry, image, label: c });
  }
}

async function shape(entry: string, image: string, region: Region, out: Parsed): Promise<void> {
  const { type, r, at, vat } = region.geo!;
  if (type === 'keypoint') return skip(out, entry, 'point');
  if (type === 'polyline') return skip(out, entry, 'line');
  const label = region.labels[0];
  if (label === undefined || !label.trim()) return skip(out, entry, 'noLabel');
  // Several labels on one region: the first is kept, as label-studio-converter's COCO and YOLO exports do.
  if (region.labels.length > 1) skip(out, entry, 'extraLabel', undefined, region.labels.length - 1);
  const size = sizeOf(r);
  if (size === 'bad') return badField(out, entry, `${at}.original_width`, 'positiveSize');
  if (type === 'brush') return brush(entry, image, label, r.value as Result, size, at, vat, out);
  const v = r.value as Result;
  const made = type === 'rectangle' ? rectangle(v, size) : type === 'polygon' ? polygon(v, size) : ellipse(v, size);
  if (made === 'invalid') return skip(out, entry, 'invalid');
  if (made === 'tooMany') return tooManyPoints(out, entry, LabelingLimits.polygonPointsMax);
  if ('field' in made) return badField(out, entry, made.field === 'size' ? `${at}.original_width` : `${vat}.${made.field}`, made.field === 'size' ? 'positiveSize' : made.field.startsWith('points') ? 'points' : 'number');
  const text = region.text.map((s) => s.trim()).filter(Boolean).join(' ');
  if (text) made.geometry.text = text.slice(0, 1000);
  const a: ParsedAnnotation = { entry, image, label, geometry: made.geometry };
  if (!size) a.normalized = true;
  if (type === 'ellipse') a.converted = 'circleToPolygon';
  out.annotations.push(a);
}

/**
 * A brush region: Label Studio's RLE (label-studio-converter brush.py) of the RGBA pixels at the original size,
 * painted where alpha > 0, traced into one polygon per island. Other brush formats are skipped by kind.
 */
async function brush(entry: string, image: string, label: string, v: Result, size: Size, at: string, vat: string, out: Parsed): Promise<void> {
  if (v.format !== undefined && v.format !== 'rle') return skip(out, entry, 'unsupportedShape', { kind: 'brush' });
  if (!size) return badField(out, entry, `${at}.original_width`, 'positiveSize');
  const mask = isList(v.rle) ? await decodeBrushRle(v.rle, size.w, size.h) : null;
  if (!mask) return badField(out, entry, `${vat}.rle`, 'rle');
  const parts = await maskToPolygons(mask, size.w, size.h, LabelingLimits.polygonPointsMax);
  if (parts.length === 0) return skip(out, entry, 'invalid');
  const [first, ...more] = parts.map((points): Geometry => ({ kind: 'polygon', points }));
  out.annotations.push({ entry, image, label, geometry: first!, ...(more.length ? { moreParts: more } : {}), converted: 'maskToPolygon' });
}

/**
 * Label Studio's brush RLE, bits most significant first: 32 bits the count of RGBA values (width × height × 4),
 * 5 bits the word size − 1, four 4-bit run-length widths − 1; then blocks of 1 bit (1: a run of one value, 0:
 * literal values), 2 bits choosing the width, the length − 1 in that width, then the value(s). Returns the
 * alpha channel as 0/1 per pixel, or null when the stream does not describe a w × h image.
 */
export async function decodeBrushRle(rle: ArrayLike<unknown>, w: number, h: number): Promise<Uint8Array | null> {
  if (!Number.isInteger(w) || !Number.isInteger(h) || w * h > MASK_PIXELS_MAX) return null;
  const bytes = new Uint8Array(rle.length);
  for (let k = 0; k < rle.length; k++) {
    const b = rle[k];
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) return null;
    bytes[k] = b;
  }
  const total = bytes.length * 8;
  let pos = 0;
  const read = (bits: number): number => {
    if (pos + bits > total) throw new RangeError('end of stream');
    let v = 0;
    for (let k = 0; k < bits; k++, pos++) v = v * 2 + ((bytes[pos >> 3]! >> (7 - (pos & 7))) & 1);
    return v;
  };
  const mask = new Uint8Array(w * h);
  try {
    const num = read(32);
    if (num !== w * h * 4) return null;
    const word = read(5) + 1;
    const widths = [read(4) + 1, read(4) + 1, read(4) + 1, read(4) + 1];
    let i = 0;
    let work = 0;
    while (i < num) {
      const run = read(1) === 1;
      const j = Math.min(num, i + 1 + read(widths[read(2)]!));
      if (run) {
        if (read(word) > 0) for (let k = i + ((7 - (i % 4)) % 4); k < j; k += 4) mask[k >> 2] = 1;
      } else for (let k = i; k < j; k++) if (read(word) > 0 && k % 4 === 3) mask[k >> 2] = 1;
      work += j - i;
      i = j;
      if (work > 1 << 22) {
        work = 0;
        await breathe();
      }
    }
  } catch {
    return null;
  }
  return mask;
}

type Size = { w: number; h: number } | null;
type Made = { geometry: Geometry } | { field: string } | 'invalid' | 'tooMany';

/** original_width/height in pixels; null when absent (percent become fractions), 'bad' when unusable. */
function sizeOf(r: Result): Size | 'bad' {
  if (r.original_width === undefined && r.original_height === undefined) return null;
  const [w, h] = [r.original_width, r.original_height];
  return isCoord(w) && isCoord(h) && w > 0 && h > 0 ? { w, h } : 'bad';
}

/** Percent to pixels, or to fractions without a size (divided last, so that 30 % is exactly 0.3). */
const scale = (size: Size) => ({ sx: (v: number) => (v * (size?.w ?? 1)) / 100, sy: (v: number) => (v * (size?.h ?? 1)) / 100 });

function rectangle(v: Result, size: Size): Made {
  for (const k of ['x', 'y', 'width', 'height']) if (!isCoord(v[k])) return { field: k };
  if (v.rotation !== undefined && v.rotation !== null && !isCoord(v.rotation)) return { field: 'rotation' };
  const [x, y, width, height] = [v.x, v.y, v.width, v.height] as number[] as [number, number, number, number];
  if (width <= 0 || height <= 0) return 'invalid';
  const rot = ((((v.rotation as number | undefined) ?? 0) % 360) + 360) % 360;
  const { sx, sy } = scale(size);
  const [x0, y0, w, h] = [sx(x), sy(y), sx(width), sy(height)];
  if (Math.abs(rot) < 1e-9 || Math.abs(rot - 360) < 1e-9) return { geometry: { kind: 'box', x1: x0, y1: y0, x2: x0 + w, y2: y0 + h } };
  if (!size) return { field: 'size' }; // a turned box in fractions of two different sides has no shape
  const a = (rot * Math.PI) / 180;
  const [cos, sin] = [Math.cos(a), Math.sin(a)];
  const angle = rot > 180 ? rot - 360 : rot;
  return { geometry: { kind: 'rbox', cx: x0 + (w / 2) * cos - (h / 2) * sin, cy: y0 + (w / 2) * sin + (h / 2) * cos, w, h, angle } };
}

function polygon(v: Result, size: Size): Made {
  const pts = v.points;
  if (!Array.isArray(pts)) return { field: 'points' };
  if (pts.length > LabelingLimits.polygonPointsMax) return 'tooMany';
  const { sx, sy } = scale(size);
  const out: Pt[] = [];
  for (const [k, p] of pts.entries()) {
    if (!isList(p) || p.length < 2 || !isCoord(p[0]) || !isCoord(p[1])) return { field: `points[${k}]` };
    out.push([sx(p[0] as number), sy(p[1] as number)]);
  }
  return new Set(out.map((p) => p.join())).size >= 3 ? { geometry: { kind: 'polygon', points: out } } : 'invalid';
}

/** Centre (x, y), radii in percent of width and height, turned clockwise about its centre. */
function ellipse(v: Result, size: Size): Made {
  for (const k of ['x', 'y', 'radiusX', 'radiusY']) if (!isCoord(v[k])) return { field: k };
  if (v.rotation !== undefined && v.rotation !== null && !isCoord(v.rotation)) return { field: 'rotation' };
  const rot = (v.rotation as number | undefined) ?? 0;
  if (!size && rot % 360 !== 0) return { field: 'size' };
  const { sx, sy } = scale(size);
  const [cx, cy, rx, ry] = [sx(v.x as number), sy(v.y as number), sx(v.radiusX as number), sy(v.radiusY as number)];
  if (rx <= 0 || ry <= 0) return 'invalid';
  const a = (rot * Math.PI) / 180;
  const [cos, sin] = [Math.cos(a), Math.sin(a)];
  // As many vertices as a circle of the larger radius needs (in pixels; fractions as of a 1000 px image).
  const n = circle(0, 0, Math.max(rx, ry) * (size ? 1 : 1000)).length;
  const points = Array.from({ length: n }, (_, k) => {
    const [c, s] = [Math.cos((2 * Math.PI * k) / n), Math.sin((2 * Math.PI * k) / n)];
    return [cx + rx * c * cos - ry * s * sin, cy + rx * c * sin + ry * s * cos] as Pt;
  });
  return { geometry: { kind: 'polygon', points } };
}

/**
 * The task's image: `image`, `img` or `ocr`, else its only string that looks like a path or URL. Query string
 * and fragment go (a local-files `?d=dir/a.jpg` gives `dir/a.jpg`), %-escapes are decoded, Label Studio's
 * upload folder and the 8-hex prefix it gives uploads (`ab12cd34-a.jpg`) are dropped. Only ever a name to match.
 */
export function imageOf(data: Record<string, unknown>): string | null {
  const named = ['image', 'img', 'ocr'].map((k) => data[k]).find((v) => typeof v === 'string' && v.trim());
  const pathy = Object.values(data).filter((v): v is string => typeof v === 'string' && /[/\\]|\.[a-z0-9]{2,5}$/i.test(v.trim()) && !/\s/.test(v.trim()));
  const raw = (named as string | undefined) ?? (pathy.length === 1 ? pathy[0] : undefined);
  return raw === undefined ? null : imageName(raw);
}

export function imageName(raw: string): string | null {
  let s = raw.trim().replace(/\\/g, '/');
  const local = /^(?:[a-z]+:\/\/[^/]*)?(?:\/data\/local-files\/?)?\?(?:[^#]*&)?d=([^&#]*)/i.exec(s);
  if (local) s = local[1]!;
  else s = s.replace(/[?#].*$/, '');
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, ''); // scheme and host (or S3/GCS bucket)
  try {
    s = decodeURIComponent(s.replace(/\+/g, local ? ' ' : '+'));
  } catch {
    // a lone '%' stays as written
  }
  if (s.endsWith('/')) return null;
  if (/^\/?data\/upload\/\d+\//.test(s)) s = path.posix.basename(s);
  s = path.posix.normalize(s.replace(/^\/+/, '')).replace(/^(\.\.\/)+/, '');
  const base = path.posix.basename(s).replace(/^[0-9a-f]{8}-(?=.)/, '');
  if (!base || base === '.' || base === '..') return null;
  const dir = path.posix.dirname(s);
  return dir === '.' ? base : `${dir}/${base}`;
}

const pc = (n: number) => Math.round(n * 1e8) / 1e8;

/**
 * A list of tasks as Label Studio 1.x exports them, one annotation each: `rectanglelabels` (a rotated box with
 * its rotated top-left corner as anchor), `polygonlabels`, and OCR text as a `textarea` sharing the region's id.
 * Percent with 8 decimals: under 0.0001 px even on a 100,000 px image.
 */
export const labelStudioWriter: Writer = {
  imageDir: 'images/',
  files(images) {
    const tasks = images.map((img, t) => {
      const sx = 100 / img.width;
      const sy = 100 / img.height;
      const result = img.annotations.flatMap((a, k) => {
        const id = `r${t + 1}_${k + 1}`;
        const common = { id, original_width: img.width, original_height: img.height, image_rotation: 0, to_name: 'image', origin: 'manual' };
        const g = a.geometry;
        let value: Record<string, unknown>;
        let type: string;
        if (g.kind === 'polygon') {
          type = 'polygonlabels';
          value = { points: g.points.map(([x, y]) => [pc(x * sx), pc(y * sy)]), closed: true };
        } else if (g.kind === 'box') {
          type = 'rectanglelabels';
          value = { x: pc(g.x1 * sx), y: pc(g.y1 * sy), width: pc((g.x2 - g.x1) * sx), height: pc((g.y2 - g.y1) * sy), rotation: 0 };
        } else {
          type = 'rectanglelabels';
          const [tl] = (toExportable(g) as { points: Pt[] }).points;
          value = { x: pc(tl![0] * sx), y: pc(tl![1] * sy), width: pc(g.w * sx), height: pc(g.h * sy), rotation: pc((((g.angle % 360) + 360) % 360)) };
        }
        const region = { ...common, from_name: type === 'polygonlabels' ? 'polygon' : 'label', type, value: { ...value, [type]: [a.label] } };
        if (g.text === undefined) return [region];
        return [region, { ...common, from_name: 'transcription', type: 'textarea', value: { ...value, text: [g.text] } }];
      });
      const annotation = { id: t + 1, completed_by: 1, result, was_cancelled: false, ground_truth: false, lead_time: 0, result_count: result.length, task: t + 1 };
      return { id: t + 1, annotations: [annotation], predictions: [], data: { image: `images/${img.file}` }, meta: {} };
    });
    return [{ path: 'labelstudio.json', data: Buffer.from(JSON.stringify(tasks, null, 2)) }];
  },
};
