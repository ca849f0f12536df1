import type { Geometry } from '@loupe/contracts';
import type { ZipText } from './zip-read.js';
import { baseName, boundsOf, round, toExportable, validGeometry, type Parsed, type Writer } from './types.js';

interface CocoFile {
  images?: { id: number; file_name: string; width?: number; height?: number }[];
  annotations?: { id?: number; image_id: number; category_id: number; bbox?: number[]; segmentation?: unknown; text?: string }[];
  categories?: { id: number; name: string }[];
}

export function isCoco(json: unknown): json is CocoFile {
  const j = json as CocoFile;
  return !!j && Array.isArray(j.images) && Array.isArray(j.annotations) && Array.isArray(j.categories);
}

/** COCO detection/segmentation JSON: bbox [x,y,w,h] becomes a box, a polygon segmentation a polygon. */
export function parseCoco(entry: string, coco: CocoFile, out: Parsed): void {
  const images = new Map((coco.images ?? []).map((i) => [i.id, baseName(String(i.file_name))]));
  const cats = new Map((coco.categories ?? []).map((c) => [c.id, String(c.name)]));
  for (const name of images.values()) out.images.add(name);
  for (const a of coco.annotations ?? []) {
    const image = images.get(a.image_id);
    const label = cats.get(a.category_id);
    if (!image || label === undefined) {
      out.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
      continue;
    }
    let geometry: Geometry | null = null;
    const seg = a.segmentation;
    if (Array.isArray(seg) && Array.isArray(seg[0]) && (seg[0] as number[]).length >= 6) {
      const flat = seg[0] as number[];
      const points: [number, number][] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) points.push([flat[i]!, flat[i + 1]!]);
      geometry = { kind: 'polygon', points };
    } else if (Array.isArray(a.bbox) && a.bbox.length === 4) {
      const [x, y, w, h] = a.bbox as [number, number, number, number];
      geometry = { kind: 'box', x1: x, y1: y, x2: x + w, y2: y + h };
    }
    if (geometry && typeof a.text === 'string') geometry.text = a.text;
    if (!geometry || !validGeometry(geometry)) {
      out.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
      continue;
    }
    out.annotations.push({ image, label, geometry });
  }
}

export const cocoWriter: Writer = {
  imageDir: 'images/',
  files(images, labels): ZipText[] {
    let id = 0;
    const doc = {
      info: { description: 'Exported from Loupe' },
      images: images.map((img, i) => ({ id: i + 1, file_name: img.file, width: img.width, height: img.height })),
      categories: labels.map((name, i) => ({ id: i + 1, name, supercategory: '' })),
      annotations: images.flatMap((img, i) =>
        img.annotations.map((a) => {
          const g = toExportable(a.geometry);
          const b = boundsOf(g);
          const bbox = [round(b.x1), round(b.y1), round(b.x2 - b.x1), round(b.y2 - b.y1)];
          return {
            id: ++id,
            image_id: i + 1,
            category_id: a.labelIndex + 1,
            bbox,
            area: round((b.x2 - b.x1) * (b.y2 - b.y1)),
            iscrowd: 0,
            segmentation: g.kind === 'polygon' ? [g.points.flatMap(([x, y]) => [round(x), round(y)])] : [],
            ...(g.text !== undefined ? { text: g.text } : {}),
          };
        }),
      ),
    };
    return [{ path: 'annotations.json', data: Buffer.from(JSON.stringify(doc)) }];
  },
};
