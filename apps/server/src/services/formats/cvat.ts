import { XMLBuilder } from 'fast-xml-parser';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { decodeRowRuns, maskToPolygons, MaskError } from './mask.js';
import { addShape, badField, breathe, decodeXmlEntities, isCoord, isObject, round, skip, validGeometry, type Expected, type Parsed, type ParsedAnnotation, type Writer } from './types.js';

/**
 * "CVAT for images" XML 1.1: a root <annotations> holding <version>1.1</version>, <meta> and <image> elements
 * (CVAT "for video" holds <track> elements instead). Pascal VOC's root is <annotation>, never claimed here.
 */
export function isCvat(xml: string): boolean {
  const at = rootAt(xml);
  if (at < 0 || !/^<annotations[\s>]/.test(xml.slice(at, at + 13))) return false;
  return /<version>\s*1\.1\s*<\/version>/.test(xml.slice(at, at + 65_536)) || /<(image|track)[\s>/]/.test(xml);
}

/**
 * Where the root element starts, past a BOM, the declaration, comments and whitespace; -1 when it is not found.
 * A scan rather than one regular expression: nested lazy groups backtrack exponentially on "<??><??>…".
 */
function rootAt(xml: string): number {
  let i = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < xml.length && /\s/.test(xml[i]!)) i++;
    const end = xml.startsWith('<?', i) ? xml.indexOf('?>', i + 2) + 2 : xml.startsWith('<!--', i) ? xml.indexOf('-->', i + 4) + 3 : i;
    if (end === i) return i < xml.length ? i : -1;
    if (end < i) return -1;
    i = end;
  }
}

/**
 * An XML attribute's value. The worker's list rule also wraps attributes named like a listed element
 * (`label`, `points`) in a one-item list; either form is read.
 */
function attr(el: Record<string, unknown>, name: string): unknown {
  const v = el[name];
  return Array.isArray(v) && v.length === 1 ? v[0] : v;
}
/** A text attribute's value, decoded, or undefined when it is missing, empty or not text. */
const textAttr = (el: Record<string, unknown>, name: string): string | undefined => {
  const v = attr(el, name);
  return typeof v === 'string' && v.trim() !== '' ? decodeXmlEntities(v) : undefined;
};
const num = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === '' ? [] : [v]);
/** Attribute names CVAT users give the transcription of a text region. */
const TEXT_ATTRIBUTES = new Set(['text', 'ocr', 'transcription']);

type Bad = { field: string; expected: Expected };
type Shape = Pick<ParsedAnnotation, 'geometry' | 'moreParts' | 'converted'>;

/** Reads attributes `names` of `el` as coordinates, or names the first that is not one. */
function coords(el: Record<string, unknown>, at: string, names: string[]): number[] | Bad {
  const out: number[] = [];
  for (const n of names) {
    const v = num(attr(el, n));
    if (!isCoord(v)) return { field: `${at}.${n}`, expected: 'number' };
    out.push(v);
  }
  return out;
}

function box(el: Record<string, unknown>, at: string): Shape | Bad {
  const c = coords(el, at, ['xtl', 'ytl', 'xbr', 'ybr']);
  if (!Array.isArray(c)) return c;
  const [x1, y1, x2, y2] = c as [number, number, number, number];
  let geometry: Geometry = { kind: 'box', x1, y1, x2, y2 };
  if (attr(el, 'rotation') !== undefined) {
    const angle = num(attr(el, 'rotation'));
    if (!isCoord(angle)) return { field: `${at}.rotation`, expected: 'number' };
    // CVAT turns the box about its centre, clockwise in degrees (image y down), as Loupe's rbox does.
    geometry = { kind: 'rbox', cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, w: x2 - x1, h: y2 - y1, angle };
  }
  return validGeometry(geometry) ? { geometry } : { field: at, expected: 'positiveSize' };
}

function polygon(el: Record<string, unknown>, at: string): Shape | Bad | 'tooMany' {
  const field = `${at}.points`;
  const text = attr(el, 'points');
  if (typeof text !== 'string') return { field, expected: 'points' };
  const pairs = text.split(';').filter((p) => p.trim() !== '');
  if (pairs.length > LabelingLimits.polygonPointsMax) return 'tooMany';
  const points: [number, number][] = [];
  for (const p of pairs) {
    const xy = p.split(',').map(num);
    if (xy.length !== 2 || !isCoord(xy[0]) || !isCoord(xy[1])) return { field, expected: 'points' };
    points.push([xy[0], xy[1]]);
  }
  const geometry: Geometry = { kind: 'polygon', points };
  return validGeometry(geometry) ? { geometry } : { field, expected: 'points' };
}

/** An ellipse as a polygon whose chords stray at most half a pixel from it. */
function ellipse(el: Record<string, unknown>, at: string): Shape | Bad {
  const c = coords(el, at, ['cx', 'cy', 'rx', 'ry']);
  if (!Array.isArray(c)) return c;
  const [cx, cy, rx, ry] = c as [number, number, number, number];
  if (!(rx > 0 && ry > 0)) return { field: at, expected: 'positiveSize' };
  const rot = attr(el, 'rotation') === undefined ? 0 : num(attr(el, 'rotation'));
  if (!isCoord(rot)) return { field: `${at}.rotation`, expected: 'number' };
  const r = Math.max(rx, ry);
  const n = Math.min(128, Math.max(16, Math.ceil(Math.PI / Math.acos(Math.max(-1, 1 - 0.5 / r)))));
  const a = (rot * Math.PI) / 180;
  const points = Array.from({ length: n }, (_, i): [number, number] => {
    const t = (2 * Math.PI * i) / n;
    const x = rx * Math.cos(t);
    const y = ry * Math.sin(t);
    return [cx + x * Math.cos(a) - y * Math.sin(a), cy + x * Math.sin(a) + y * Math.cos(a)];
  });
  return { geometry: { kind: 'polygon', points }, converted: 'circleToPolygon' };
}

/** CVAT's own mask: run lengths from background, row-major over the left/top/width/height rectangle. */
async function mask(el: Record<string, unknown>, at: string): Promise<Shape | Bad | null> {
  const c = coords(el, at, ['left', 'top', 'width', 'height']);
  if (!Array.isArray(c)) return c;
  const [left, top, w, h] = c as [number, number, number, number];
  const rle = attr(el, 'rle');
  if (typeof rle !== 'string') return { field: `${at}.rle`, expected: 'rle' };
  const runs = rle.split(/[\s,]+/).filter((s) => s !== '').map(Number);
  let bits: Uint8Array;
  try {
    bits = decodeRowRuns(runs, w, h);
  } catch (e) {
    if (e instanceof MaskError) return { field: `${at}.rle`, expected: 'rle' };
    throw e;
  }
  const polygons = await maskToPolygons(bits, w, h, LabelingLimits.polygonPointsMax);
  if (polygons.length === 0) return null;
  const [first, ...rest] = polygons.map((pts): Geometry => ({ kind: 'polygon', points: pts.map(([x, y]) => [x + left, y + top]) }));
  return { geometry: first!, ...(rest.length ? { moreParts: rest } : {}), converted: 'maskToPolygon' };
}

function textOf(el: Record<string, unknown>): string | undefined {
  for (const a of list(el.attribute)) {
    const name = isObject(a) ? textAttr(a, 'name') : undefined;
    if (!isObject(a) || name === undefined || !TEXT_ATTRIBUTES.has(name.toLowerCase())) continue;
    const t = a['#text'];
    if ((typeof t === 'string' || typeof t === 'number') && String(t) !== '') return decodeXmlEntities(String(t));
  }
  return undefined;
}

const READERS = { box, polygon, ellipse, mask } as const;
const SKIPPED = { polyline: 'line', points: 'point' } as const;
/** Attributes of <image>; any other key is a child element, hence a shape kind. */
const IMAGE_ATTRIBUTES = new Set(['id', 'name', 'width', 'height', 'subset', 'task_id', 'job_id', '#text']);

/**
 * CVAT for images 1.1, as parsed on the worker (parseXml 'cvat': attributes unprefixed, values text, repeatable
 * elements lists). Boxes (with `rotation`: rotated boxes), polygons, ellipses (→ polygons) and masks (→ one
 * polygon per island) are shapes; tags are image-level classes; polylines, points, cuboids, skeletons and video
 * tracks are skipped by reason. A `text`, `ocr` or `transcription` attribute is the shape's OCR text.
 */
export async function parseCvat(entry: string, doc: unknown, out: Parsed): Promise<void> {
  out.files.set(entry, 'cvat');
  const root = isObject(doc) ? doc.annotations : undefined;
  if (root === '') return;
  if (!isObject(root)) return badField(out, entry, 'annotations', 'object');
  for (const track of list(root.track)) {
    const shapes = isObject(track) ? Object.values(track).reduce<number>((n, v) => n + (Array.isArray(v) ? v.filter(isObject).length : isObject(v) ? 1 : 0), 0) : 0;
    skip(out, entry, 'unsupportedShape', { kind: 'track' }, Math.max(1, shapes));
  }
  for (const [i, img] of list(root.image).entries()) {
    await breathe();
    const at = `image[${i}]`;
    const name = isObject(img) ? textAttr(img, 'name') : undefined;
    if (!isObject(img) || name === undefined) {
      badField(out, entry, `${at}.name`, 'text');
      continue;
    }
    const image = name.trim().replace(/\\/g, '/');
    out.images.add(image);
    for (const [kind, value] of Object.entries(img)) {
      // Attributes are text; child elements (shapes) are objects or lists.
      if (IMAGE_ATTRIBUTES.has(kind) || typeof value === 'string') continue;
      const els = list(value);
      if (kind in SKIPPED) {
        skip(out, entry, SKIPPED[kind as keyof typeof SKIPPED], undefined, els.length);
        continue;
      }
      if (kind === 'tag') {
        for (const [k, t] of els.entries()) {
          const label = isObject(t) ? textAttr(t, 'label') : undefined;
          if (label !== undefined) out.classes.push({ entry, image, label });
          else badField(out, entry, `${at}.tag[${k}].label`, 'text');
        }
        continue;
      }
      const read = READERS[kind as keyof typeof READERS];
      if (!read) {
        skip(out, entry, 'unsupportedShape', { kind }, els.length);
        continue;
      }
      for (const [k, el] of els.entries()) {
        const place = `${at}.${kind}[${k}]`;
        const label = isObject(el) ? textAttr(el, 'label') : undefined;
        if (!isObject(el) || label === undefined) {
          badField(out, entry, `${place}.label`, 'text');
          continue;
        }
        addShape(out, entry, image, label, await read(el, place), textOf(el));
      }
    }
  }
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
const angle360 = (a: number) => {
  const r = round(((a % 360) + 360) % 360, 4);
  return r === 360 ? 0 : r;
};

export const cvatWriter: Writer = {
  imageDir: 'images/',
  files(images, labels) {
    const withText = new Set(images.flatMap((img) => img.annotations.filter((a) => a.geometry.text !== undefined).map((a) => a.label)));
    const textAttribute = { attribute: { name: 'text', mutable: 'False', input_type: 'text', default_value: '', values: '' } };
    const doc = {
      annotations: {
        version: '1.1',
        meta: {
          task: {
            name: 'Exported from Loupe',
            size: images.length,
            mode: 'annotation',
            labels: { label: labels.map((name) => ({ name, type: 'any', ...(withText.has(name) ? { attributes: textAttribute } : {}) })) },
          },
        },
        image: images.map((img, i) => {
          const shapes: Record<'box' | 'polygon', Record<string, unknown>[]> = { box: [], polygon: [] };
          for (const a of img.annotations) {
            const g = a.geometry;
            const common = { '@_label': a.label, '@_source': 'manual', '@_occluded': '0' };
            const text = g.text !== undefined ? { attribute: [{ '@_name': 'text', '#text': g.text }] } : {};
            if (g.kind === 'polygon') {
              shapes.polygon.push({ ...common, '@_points': g.points.map(([x, y]) => `${round(x)},${round(y)}`).join(';'), '@_z_order': '0', ...text });
              continue;
            }
            const [x1, y1, x2, y2] = g.kind === 'box' ? [g.x1, g.y1, g.x2, g.y2] : [g.cx - g.w / 2, g.cy - g.h / 2, g.cx + g.w / 2, g.cy + g.h / 2];
            const rotation = g.kind === 'rbox' ? { '@_rotation': String(angle360(g.angle)) } : {};
            shapes.box.push({ ...common, '@_xtl': round(x1), '@_ytl': round(y1), '@_xbr': round(x2), '@_ybr': round(y2), ...rotation, '@_z_order': '0', ...text });
          }
          return { '@_id': i, '@_name': img.file, '@_width': img.width, '@_height': img.height, ...(shapes.box.length ? { box: shapes.box } : {}), ...(shapes.polygon.length ? { polygon: shapes.polygon } : {}) };
        }),
      },
    };
    const xml = `<?xml version="1.0" encoding="utf-8"?>\n${builder.build(doc) as string}`;
    return [{ path: 'annotations.xml', data: Buffer.from(xml) }];
  },
};
