import { LabelingLimits, type Geometry } from '@loupe/contracts';
import type { ZipText } from './zip-read.js';
import { badField, baseName, boundsOf, breathe, isCoord, isList, isObject, round, toExportable, tooManyPoints, validGeometry, type Parsed, type Writer } from './types.js';

interface CocoFile {
  images: unknown[];
  annotations: unknown[];
  categories: unknown[];
}

export function isCoco(json: unknown): json is CocoFile {
  return isObject(json) && Array.isArray(json.images) && Array.isArray(json.annotations) && Array.isArray(json.categories);
}

const isId = (v: unknown): v is number | string => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string';

/**
 * COCO detection/segmentation JSON: bbox [x,y,w,h] becomes a box, a polygon segmentation a polygon. Anything
 * of the wrong shape (null for an object, strings or NaN for numbers, negative sizes, a polygon over the
 * vertex limit) is reported with the file and the field, and the rest of the file still counts.
 */
export async function parseCoco(entry: string, coco: CocoFile, out: Parsed): Promise<void> {
  const images = new Map<number | string, string>();
  for (const [i, img] of coco.images.entries()) {
    if (!isObject(img) || !isId(img.id) || typeof img.file_name !== 'string' || !img.file_name.trim()) {
      badField(out, entry, `images[${i}]`);
      continue;
    }
    images.set(img.id, baseName(img.file_name));
  }
  const cats = new Map<number | string, string>();
  for (const [i, c] of coco.categories.entries()) {
    if (!isObject(c) || !isId(c.id) || (typeof c.name !== 'string' && typeof c.name !== 'number')) {
      badField(out, entry, `categories[${i}]`);
      continue;
    }
    cats.set(c.id, String(c.name));
  }
  for (const name of images.values()) out.images.add(name);
  const maxPoints = LabelingLimits.polygonPointsMax;
  for (const [i, a] of coco.annotations.entries()) {
    if (i % 1000 === 0) await breathe();
    const at = `annotations[${i}]`;
    if (!isObject(a)) {
      badField(out, entry, at);
      continue;
    }
    const image = isId(a.image_id) ? images.get(a.image_id) : undefined;
    if (!image) {
      badField(out, entry, `${at}.image_id`);
      continue;
    }
    const label = isId(a.category_id) ? cats.get(a.category_id) : undefined;
    if (label === undefined) {
      badField(out, entry, `${at}.category_id`);
      continue;
    }
    let geometry: Geometry | null = null;
    const seg = a.segmentation;
    if (Array.isArray(seg) && isList(seg[0]) && seg[0].length >= 6) {
      const flat = seg[0];
      if (flat.length > 2 * maxPoints) {
        tooManyPoints(out, entry, maxPoints);
        continue;
      }
      if (flat.length % 2 !== 0 || !flat.every(isCoord)) {
        badField(out, entry, `${at}.segmentation`);
        continue;
      }
      const points: [number, number][] = [];
      for (let k = 0; k + 1 < flat.length; k += 2) points.push([flat[k] as number, flat[k + 1] as number]);
      geometry = { kind: 'polygon', points };
    } else if (Array.isArray(a.bbox) && a.bbox.length === 4 && a.bbox.every(isCoord)) {
      const [x, y, w, h] = a.bbox as [number, number, number, number];
      geometry = { kind: 'box', x1: x, y1: y, x2: x + w, y2: y + h };
    }
    if (!geometry || !validGeometry(geometry)) {
      badField(out, entry, `${at}.${Array.isArray(seg) && seg.length > 0 ? 'segmentation' : 'bbox'}`);
      continue;
    }
    if (typeof a.text === 'string') geometry.text = a.text;
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
