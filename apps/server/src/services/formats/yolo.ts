import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { badField, boundsOf, breathe, stemOf, toExportable, tooManyPoints, validGeometry, type Gallery, type Parsed, type Writer } from './types.js';

/** classes.txt: one name a line. data.yaml: `names: [a, b]`, a `names:` list, or a `names:` index map. */
export function parseClassNames(path: string, text: string): string[] | null {
  if (/classes\.txt$/i.test(path)) return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const inline = /^names:\s*\[(.*)\]\s*$/m.exec(text);
  if (inline) return inline[1]!.split(',').map((s) => s.trim().replace(/^['"]|['"]$/g, '')).filter(Boolean);
  const block = /^names:\s*$/m.exec(text);
  if (!block) return null;
  const names: string[] = [];
  for (const line of text.slice(block.index + block[0].length).split(/\r?\n/)) {
    if (!line.trim()) continue;
    const item = /^\s+(?:-\s*|\d+\s*:\s*)(.+)$/.exec(line);
    if (!item) break;
    names.push(item[1]!.trim().replace(/^['"]|['"]$/g, ''));
  }
  return names;
}

/**
 * YOLO txt: `class cx cy w h` (box) or `class x1 y1 x2 y2 …` (segment), normalised 0–1; one file per image.
 * A line with an unknown class, a value that is not a number, a negative size or too many vertices is
 * reported with the file and the line.
 */
export async function parseYolo(entry: string, text: string, names: string[], gallery: Gallery, out: Parsed): Promise<void> {
  const image = gallery.byStem(stemOf(entry));
  if (!image) {
    out.problems.push({ entry, key: 'annotationNoImage', vars: { name: entry } });
    return;
  }
  out.images.add(image.name);
  const { width: W, height: H } = image;
  const maxPoints = LabelingLimits.polygonPointsMax;
  const lines = text.split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    if (i % 1000 === 0) await breathe();
    if (!line.trim()) continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length > 2 * maxPoints + 1) {
      tooManyPoints(out, entry, maxPoints);
      continue;
    }
    const nums = fields.map(Number);
    const cls = nums[0]!;
    const label = Number.isInteger(cls) && cls >= 0 ? names[cls] : undefined;
    let geometry: Geometry | null = null;
    if (nums.length === 5) {
      const [, cx, cy, w, h] = nums as [number, number, number, number, number];
      geometry = { kind: 'box', x1: (cx - w / 2) * W, y1: (cy - h / 2) * H, x2: (cx + w / 2) * W, y2: (cy + h / 2) * H };
    } else if (nums.length >= 7 && nums.length % 2 === 1) {
      const points: [number, number][] = [];
      for (let k = 1; k + 1 < nums.length; k += 2) points.push([nums[k]! * W, nums[k + 1]! * H]);
      geometry = { kind: 'polygon', points };
    }
    if (!geometry || label === undefined || !validGeometry(geometry)) {
      badField(out, entry, `line ${i + 1}`);
      continue;
    }
    out.annotations.push({ image: image.name, label, geometry });
  }
}

const n6 = (v: number) => String(Math.round(v * 1e6) / 1e6);

export const yoloWriter: Writer = {
  imageDir: 'images/',
  files(images, labels) {
    const txt = images.map((img) => ({
      path: `labels/${stemOf(img.file)}.txt`,
      data: Buffer.from(
        img.annotations
          .map((a) => {
            const g = toExportable(a.geometry);
            if (g.kind === 'polygon') return [a.labelIndex, ...g.points.flatMap(([x, y]) => [n6(x / img.width), n6(y / img.height)])].join(' ');
            const b = boundsOf(g);
            return [a.labelIndex, n6((b.x1 + b.x2) / 2 / img.width), n6((b.y1 + b.y2) / 2 / img.height), n6((b.x2 - b.x1) / img.width), n6((b.y2 - b.y1) / img.height)].join(' ');
          })
          .join('\n'),
      ),
    }));
    const yaml = `path: .\ntrain: images\nval: images\nnc: ${labels.length}\nnames:\n${labels.map((l, i) => `  ${i}: ${JSON.stringify(l)}`).join('\n')}\n`;
    return [...txt, { path: 'classes.txt', data: Buffer.from(labels.join('\n')) }, { path: 'data.yaml', data: Buffer.from(yaml) }];
  },
};
