import { XMLBuilder } from 'fast-xml-parser';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { badField, baseName, decodeXmlEntities, boundsOf, breathe, isCoord, isObject, round, skip, stemOf, toExportable, tooManyPoints, type Expected, type Parsed, type Writer } from './types.js';

/** External entities and entity expansion are never wanted in annotation files: refuse before parsing. */
export const hasDoctype = (xml: string) => /<!\s*(DOCTYPE|ENTITY)/i.test(xml);

export function isVoc(xml: string): boolean {
  return /<annotation[\s>]/.test(xml);
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** Values arrive as text (parseXml 'voc'): "12", "12.0", "1e2"; anything else, and 1e300, is not a coordinate. */
const num = (v: unknown): number => (typeof v === 'string' && NUMBER.test(v.trim()) ? Number(v.trim()) : NaN);

/** Element text, or null for a missing, empty or nested element. */
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? decodeXmlEntities(v.trim()) : null);
const flag = (v: unknown) => typeof v === 'string' && num(v) > 0;

type Read = { geometry: Geometry } | { bad: string; expected: Expected } | { tooMany: true } | { skip: 'point' | 'line' } | null;

/** roLabelImg: centre, size and the angle in radians, turning clockwise on screen (its rotatePoint with −angle). */
function rotated(at: string, r: unknown): Read {
  if (!isObject(r)) return { bad: `${at}.robndbox`, expected: 'number' };
  const [cx, cy, w, h, angle] = [r.cx, r.cy, r.w, r.h, r.angle].map(num) as [number, number, number, number, number];
  if (![cx, cy, w, h].every((v) => isCoord(v)) || !Number.isFinite(angle) || Math.abs(angle) > 1000) return { bad: `${at}.robndbox`, expected: 'number' };
  if (w <= 0 || h <= 0) return { bad: `${at}.robndbox`, expected: 'positiveSize' };
  return { geometry: { kind: 'rbox', cx, cy, w, h, angle: (angle * 180) / Math.PI } };
}

/** Loupe's own <polygon><pt><x/><y/></pt>…, or <x1/><y1/><x2/><y2/>… as other exporters write it. */
function polygon(at: string, p: unknown): Read {
  let raw: [unknown, unknown][] = [];
  if (isObject(p) && Array.isArray(p.pt)) {
    raw = (p.pt as unknown[]).map((q) => (isObject(q) ? [q.x, q.y] : [null, null]));
  } else if (isObject(p)) {
    const xs = Object.keys(p).filter((k) => /^x\d+$/.test(k)).map((k) => Number(k.slice(1))).sort((a, b) => a - b);
    raw = xs.map((i) => [p[`x${i}`], p[`y${i}`]]);
  }
  if (raw.length > LabelingLimits.polygonPointsMax) return { tooMany: true };
  const points = raw.map(([x, y]) => [num(x), num(y)] as [number, number]);
  if (points.length < 3 || !points.every(([x, y]) => isCoord(x) && isCoord(y))) return { bad: `${at}.polygon`, expected: 'points' };
  return { geometry: { kind: 'polygon', points } };
}

function box(at: string, b: unknown): Read {
  if (!isObject(b)) return { bad: `${at}.bndbox`, expected: 'number' };
  const [x1, y1, x2, y2] = [b.xmin, b.ymin, b.xmax, b.ymax].map(num) as [number, number, number, number];
  if (![x1, y1, x2, y2].every((v) => isCoord(v))) return { bad: `${at}.bndbox`, expected: 'number' };
  if (x2 <= x1 || y2 <= y1) return { bad: `${at}.bndbox`, expected: 'positiveSize' };
  return { geometry: { kind: 'box', x1, y1, x2, y2 } };
}

/** The richest geometry an object states: a rotated box or polygon comes with its bndbox for plain VOC readers. */
function read(at: string, o: Record<string, unknown>): Read {
  // An empty <polygon/> or <robndbox/> (some writers leave one) states nothing: the next element is read.
  const has = (k: string) => o[k] !== undefined && o[k] !== '';
  if (has('robndbox')) return rotated(at, o.robndbox);
  if (has('polygon')) return polygon(at, o.polygon);
  if (o.bndbox !== undefined) return box(at, o.bndbox);
  if (has('point') || has('keypoints')) return { skip: 'point' };
  if (has('line') || has('polyline')) return { skip: 'line' };
  return null;
}

/**
 * Pascal VOC XML as labelImg, roLabelImg, CVAT, Roboflow and Loupe write it, parsed on a worker thread
 * (workers.ts 'voc': every value a string, `object` and `pt` always lists). <bndbox> → box; roLabelImg's
 * <robndbox> → rotated box (radians → degrees; both turn clockwise with y down); <polygon> → polygon;
 * <point>/<line> objects are skipped as such. The image is <filename> without folders (<folder> is the
 * dataset's), else the XML's own path without `.xml`. difficult/truncated shapes are kept, flagged.
 */
export async function parseVoc(entry: string, doc: unknown, out: Parsed): Promise<void> {
  out.files.set(entry, 'voc');
  const root = isObject(doc) ? doc.annotation : undefined;
  // <annotation/> or <annotation></annotation> parses as '': an image with no objects.
  const ann = root === '' ? {} : root;
  if (!isObject(ann)) return badField(out, entry, 'annotation', 'object');
  if (ann.filename !== undefined && typeof ann.filename !== 'string') return badField(out, entry, 'annotation.filename', 'text');
  const filename = text(ann.filename);
  const image = filename ? baseName(filename) : entry.replace(/\.xml$/i, '');
  out.images.add(image);
  if (ann.object !== undefined && !Array.isArray(ann.object)) return badField(out, entry, 'annotation.object', 'list');
  const objects = (ann.object as unknown[] | undefined) ?? [];
  for (const [i, o] of objects.entries()) {
    if (i % 1000 === 999) await breathe();
    const at = `object[${i}]`;
    if (!isObject(o)) {
      badField(out, entry, at, 'object');
      continue;
    }
    const label = text(o.name);
    if (label === null) {
      badField(out, entry, `${at}.name`, 'text');
      continue;
    }
    const r = read(at, o);
    if (r === null) badField(out, entry, `${at}.bndbox`, 'number');
    else if ('tooMany' in r) tooManyPoints(out, entry, LabelingLimits.polygonPointsMax);
    else if ('skip' in r) skip(out, entry, r.skip);
    else if ('bad' in r) badField(out, entry, r.bad, r.expected);
    else {
      const t = typeof o.text === 'string' ? decodeXmlEntities(o.text) : '';
      if (t !== '') r.geometry.text = t;
      const difficult = flag(o.difficult) || flag(o.truncated);
      out.annotations.push({ entry, image, label, geometry: r.geometry, ...(difficult ? { difficult: true } : {}) });
    }
  }
}

const builder = new XMLBuilder({ format: true, suppressEmptyNode: true });

/**
 * Plain VOC readers see every shape's <bndbox>. Rotated boxes add roLabelImg's <type>robndbox</type> and
 * <robndbox> (angle in radians, as roLabelImg reads it: it needs <type> to pick the element); polygons add
 * Loupe's <polygon><pt>; OCR text goes in <text>.
 */
export const vocWriter: Writer = {
  imageDir: 'JPEGImages/',
  files: (images) =>
    images.map((img) => ({
      path: `Annotations/${stemOf(img.file)}.xml`,
      data: Buffer.from(
        builder.build({
          annotation: {
            folder: 'JPEGImages',
            filename: img.file,
            size: { width: img.width, height: img.height, depth: 3 },
            segmented: 0,
            object: img.annotations.map((a) => {
              const g = a.geometry;
              const flat = toExportable(g);
              const b = boundsOf(flat);
              return {
                type: g.kind === 'rbox' ? 'robndbox' : 'bndbox',
                name: a.label,
                pose: 'Unspecified',
                truncated: 0,
                difficult: 0,
                bndbox: { xmin: round(b.x1), ymin: round(b.y1), xmax: round(b.x2), ymax: round(b.y2) },
                ...(g.kind === 'rbox' ? { robndbox: { cx: round(g.cx), cy: round(g.cy), w: round(g.w), h: round(g.h), angle: round((g.angle * Math.PI) / 180, 9) } } : {}),
                ...(g.kind === 'polygon' ? { polygon: { pt: g.points.map(([x, y]) => ({ x: round(x), y: round(y) })) } } : {}),
                ...(g.text !== undefined ? { text: g.text } : {}),
              };
            }),
          },
        }) as string,
      ),
    })),
};
