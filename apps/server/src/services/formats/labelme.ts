import type { Geometry } from '@loupe/contracts';
import { baseName, round, toExportable, validGeometry, type Parsed, type Writer, stemOf } from './types.js';

interface LabelMeFile {
  shapes?: { label?: string; points?: number[][]; shape_type?: string; description?: string }[];
  imagePath?: string;
  imageWidth?: number;
  imageHeight?: number;
}

export function isLabelMe(json: unknown): json is LabelMeFile {
  const j = json as LabelMeFile;
  return !!j && Array.isArray(j.shapes) && (typeof j.imagePath === 'string' || typeof j.imageWidth === 'number');
}

/** LabelMe JSON: rectangle shapes become boxes, polygon shapes polygons (segmentation). */
export function parseLabelMe(entry: string, file: LabelMeFile, out: Parsed): void {
  const image = file.imagePath ? baseName(file.imagePath) : `${stemOf(entry)}`;
  out.images.add(image);
  for (const s of file.shapes ?? []) {
    const pts = (s.points ?? []).filter((p) => Array.isArray(p) && p.length >= 2).map((p) => [Number(p[0]), Number(p[1])] as [number, number]);
    let geometry: Geometry | null = null;
    if (s.shape_type === 'rectangle' && pts.length === 2) {
      const [a, b] = pts as [[number, number], [number, number]];
      geometry = { kind: 'box', x1: Math.min(a[0], b[0]), y1: Math.min(a[1], b[1]), x2: Math.max(a[0], b[0]), y2: Math.max(a[1], b[1]) };
    } else if ((s.shape_type ?? 'polygon') === 'polygon') {
      geometry = { kind: 'polygon', points: pts };
    }
    if (geometry && s.description) geometry.text = s.description;
    if (!geometry || typeof s.label !== 'string' || !validGeometry(geometry)) {
      out.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
      continue;
    }
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
