import { XMLParser, XMLBuilder } from 'fast-xml-parser';
import type { Geometry } from '@loupe/contracts';
import { baseName, boundsOf, round, stemOf, toExportable, validGeometry, type Parsed, type Writer } from './types.js';

/** External entities and entity expansion are never wanted in annotation files: refuse before parsing. */
export const hasDoctype = (xml: string) => /<!\s*(DOCTYPE|ENTITY)/i.test(xml);

const parser = new XMLParser({ ignoreAttributes: true, processEntities: false, parseTagValue: true, isArray: (name) => ['object', 'pt'].includes(name) });

interface VocObject {
  name?: unknown;
  bndbox?: { xmin?: unknown; ymin?: unknown; xmax?: unknown; ymax?: unknown };
  polygon?: { pt?: { x?: unknown; y?: unknown }[] };
  text?: unknown;
}

export function isVoc(xml: string): boolean {
  return /<annotation[\s>]/.test(xml);
}

/** Pascal VOC XML: each object's bndbox is a box; Loupe's own exports add a <polygon> of <pt> points. */
export function parseVoc(entry: string, xml: string, out: Parsed): void {
  const doc = parser.parse(xml) as { annotation?: { filename?: unknown; object?: VocObject[] } };
  const ann = doc.annotation;
  if (!ann) {
    out.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
    return;
  }
  const image = ann.filename !== undefined && String(ann.filename).trim() ? baseName(String(ann.filename).trim()) : `${stemOf(entry)}`;
  out.images.add(image);
  for (const o of ann.object ?? []) {
    let geometry: Geometry | null = null;
    const pts = o.polygon?.pt ?? [];
    if (pts.length >= 3) geometry = { kind: 'polygon', points: pts.map((p) => [Number(p.x), Number(p.y)] as [number, number]) };
    else if (o.bndbox) {
      const b = o.bndbox;
      geometry = { kind: 'box', x1: Number(b.xmin), y1: Number(b.ymin), x2: Number(b.xmax), y2: Number(b.ymax) };
    }
    if (geometry && o.text !== undefined && String(o.text) !== '') geometry.text = String(o.text);
    if (!geometry || o.name === undefined || !validGeometry(geometry)) {
      out.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
      continue;
    }
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
