import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { badField, baseName, breathe, isCoord, isObject, round, stemOf, toExportable, tooManyPoints, validGeometry, type Parsed, type Writer } from './types.js';

interface LabelMeFile {
  shapes: unknown[];
  imagePath?: unknown;
  imageWidth?: unknown;
}

export function isLabelMe(json: unknown): json is LabelMeFile {
  return isObject(json) && 'shapes' in json && (typeof json.imagePath === 'string' || typeof json.imageWidth === 'number');
}

/**
 * LabelMe JSON: rectangle shapes become boxes, polygon shapes polygons (segmentation). `shapes` that is not a
 * list, a shape that is not an object, `points` that is not a list of [x, y] numbers or has more than the
 * vertex limit, and a non-text label are each reported with the file and the field.
 */
export async function parseLabelMe(entry: string, file: LabelMeFile, out: Parsed): Promise<void> {
  if (!Array.isArray(file.shapes)) return badField(out, entry, 'shapes');
  if (file.imagePath !== undefined && file.imagePath !== null && typeof file.imagePath !== 'string') return badField(out, entry, 'imagePath');
  const image = typeof file.imagePath === 'string' && file.imagePath.trim() ? baseName(file.imagePath) : stemOf(entry);
  out.images.add(image);
  const maxPoints = LabelingLimits.polygonPointsMax;
  for (const [i, s] of file.shapes.entries()) {
    if (i % 1000 === 0) await breathe();
    const at = `shapes[${i}]`;
    if (!isObject(s)) {
      badField(out, entry, at);
      continue;
    }
    if (!Array.isArray(s.points)) {
      badField(out, entry, `${at}.points`);
      continue;
    }
    if (s.points.length > maxPoints) {
      tooManyPoints(out, entry, maxPoints);
      continue;
    }
    const bad = s.points.findIndex((p) => !Array.isArray(p) || p.length < 2 || !isCoord(p[0]) || !isCoord(p[1]));
    if (bad >= 0) {
      badField(out, entry, `${at}.points[${bad}]`);
      continue;
    }
    if (typeof s.label !== 'string') {
      badField(out, entry, `${at}.label`);
      continue;
    }
    const pts = (s.points as number[][]).map((p) => [p[0], p[1]] as [number, number]);
    const type = s.shape_type ?? 'polygon';
    let geometry: Geometry | null = null;
    if (type === 'rectangle' && pts.length === 2) {
      const [a, b] = pts as [[number, number], [number, number]];
      geometry = { kind: 'box', x1: Math.min(a[0], b[0]), y1: Math.min(a[1], b[1]), x2: Math.max(a[0], b[0]), y2: Math.max(a[1], b[1]) };
    } else if (type === 'polygon') {
      geometry = { kind: 'polygon', points: pts };
    }
    if (!geometry || !validGeometry(geometry)) {
      badField(out, entry, geometry ? `${at}.points` : `${at}.shape_type`);
      continue;
    }
    if (typeof s.description === 'string' && s.description) geometry.text = s.description;
    out.annotations.push({ image, label: s.label, geometry });
  }
}

export const labelMeWriter: Writer = {
  imageDir: '',
  files: (images) =>
    images.map((img) => ({
      path: `${stemOf(img.file)}.json`,
      data: Buffer.from(
        JSON.stringify({
          version: '5.4.1',
          flags: {},
          shapes: img.annotations.map((a) => {
            const g = toExportable(a.geometry);
            const points = g.kind === 'box' ? [[round(g.x1), round(g.y1)], [round(g.x2), round(g.y2)]] : g.points.map(([x, y]) => [round(x), round(y)]);
            return { label: a.label, points, group_id: null, shape_type: g.kind === 'box' ? 'rectangle' : 'polygon', flags: {}, description: g.text ?? '' };
          }),
          imagePath: img.file,
          imageData: null,
          imageHeight: img.height,
          imageWidth: img.width,
        }),
      ),
    })),
};
