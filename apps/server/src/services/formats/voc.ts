import { XMLBuilder } from 'fast-xml-parser';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { badField, baseName, boundsOf, breathe, isCoord, isObject, round, stemOf, toExportable, tooManyPoints, validGeometry, type Parsed, type Writer } from './types.js';

/** External entities and entity expansion are never wanted in annotation files: refuse before parsing. */
export const hasDoctype = (xml: string) => /<!\s*(DOCTYPE|ENTITY)/i.test(xml);

export function isVoc(xml: string): boolean {
  return /<annotation[\s>]/.test(xml);
}

const num = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v);

/**
 * Pascal VOC XML, as parsed on a worker thread (workers.ts: fast-xml-parser with entities off, `object` and
 * `pt` always lists): each object's bndbox is a box; Loupe's own exports add a <polygon> of <pt> points.
 * An object without a name, a coordinate that is missing, not a number or out of range, and a polygon over the
 * vertex limit are each reported with the file and the field.
 */
export async function parseVoc(entry: string, doc: unknown, out: Parsed): Promise<void> {
  const ann = isObject(doc) ? doc.annotation : undefined;
  if (!isObject(ann)) return badField(out, entry, 'annotation');
  const filename = typeof ann.filename === 'string' || typeof ann.filename === 'number' ? String(ann.filename).trim() : '';
  if (ann.filename !== undefined && !filename) return badField(out, entry, 'annotation.filename');
  const image = filename ? baseName(filename) : stemOf(entry);
  out.images.add(image);
  const objects = Array.isArray(ann.object) ? (ann.object as unknown[]) : [];
  const maxPoints = LabelingLimits.polygonPointsMax;
  for (const [i, o] of objects.entries()) {
    if (i % 1000 === 0) await breathe();
    const at = `object[${i}]`;
    if (!isObject(o) || (typeof o.name !== 'string' && typeof o.name !== 'number') || String(o.name).trim() === '') {
      badField(out, entry, `${at}.name`);
      continue;
    }
    let geometry: Geometry | null = null;
    const pts = isObject(o.polygon) && Array.isArray(o.polygon.pt) ? (o.polygon.pt as unknown[]) : [];
    if (pts.length > maxPoints) {
      tooManyPoints(out, entry, maxPoints);
      continue;
    }
    if (pts.length >= 3) {
      const points = pts.map((p) => (isObject(p) ? ([num(p.x), num(p.y)] as [number, number]) : ([NaN, NaN] as [number, number])));
      if (!points.every((p) => isCoord(p[0]) && isCoord(p[1]))) {
        badField(out, entry, `${at}.polygon`);
        continue;
      }
      geometry = { kind: 'polygon', points };
    } else if (isObject(o.bndbox)) {
      const b = o.bndbox;
      geometry = { kind: 'box', x1: num(b.xmin) as number, y1: num(b.ymin) as number, x2: num(b.xmax) as number, y2: num(b.ymax) as number };
    }
    if (!geometry || !validGeometry(geometry)) {
      badField(out, entry, `${at}.${geometry?.kind === 'polygon' ? 'polygon' : 'bndbox'}`);
      continue;
    }
    if (o.text !== undefined && o.text !== null && String(o.text) !== '') geometry.text = String(o.text);
    out.annotations.push({ image, label: String(o.name), geometry });
  }
}

const builder = new XMLBuilder({ format: true, suppressEmptyNode: true });

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
              const g = toExportable(a.geometry);
              const b = boundsOf(g);
              return {
                name: a.label,
                pose: 'Unspecified',
                truncated: 0,
                difficult: 0,
                bndbox: { xmin: round(b.x1), ymin: round(b.y1), xmax: round(b.x2), ymax: round(b.y2) },
                ...(g.kind === 'polygon' ? { polygon: { pt: g.points.map(([x, y]) => ({ x: round(x), y: round(y) })) } } : {}),
                ...(g.text !== undefined ? { text: g.text } : {}),
              };
            }),
          },
        }) as string,
      ),
    })),
};
