import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { zipOf } from './images.js';

/**
 * The classification and segmentation specs' data: 64×64 images of one bright disc or one blue-grey square on
 * noisy dark ground (as the server's task tests draw them), so a pico network at 64 px tells them apart within a
 * few epochs. Class folders for the folder upload, a LabelMe ZIP of the shapes' polygons for segmentation.
 */

export const SHAPES = ['disc', 'square'] as const;
export type Shape = (typeof SHAPES)[number];
export const SIZE = 64;

export interface DrawnShape {
  name: string;
  file: string;
  shape: Shape;
  /** The outline in image pixels: a 24-gon for the disc, 4 corners for the square. */
  polygon: [number, number][];
}

/** Where image i's shape sits: discs and squares alternate, sizes 20 to 30 px, anywhere inside. */
export function outlineOf(i: number): { shape: Shape; polygon: [number, number][] } {
  const shape = SHAPES[i % 2]!;
  const s = 20 + ((i * 7) % 11);
  const cx = s / 2 + 3 + ((i * 13) % (SIZE - s - 6));
  const cy = s / 2 + 3 + ((i * 17) % (SIZE - s - 6));
  const polygon: [number, number][] =
    shape === 'disc'
      ? Array.from({ length: 24 }, (_, k) => [cx + (s / 2) * Math.cos((k * Math.PI) / 12), cy + (s / 2) * Math.sin((k * Math.PI) / 12)] as [number, number])
      : [
          [cx - s / 2, cy - s / 2],
          [cx + s / 2, cy - s / 2],
          [cx + s / 2, cy + s / 2],
          [cx - s / 2, cy + s / 2],
        ];
  return { shape, polygon: polygon.map(([x, y]) => [Math.round(x * 100) / 100, Math.round(y * 100) / 100]) };
}

/** Even-odd test of a pixel centre against a polygon: how the engine rasterizes labels. */
function inside(poly: [number, number][], x: number, y: number): boolean {
  let hit = false;
  for (let k = 0, j = poly.length - 1; k < poly.length; j = k++) {
    const [xk, yk] = poly[k]!;
    const [xj, yj] = poly[j]!;
    if (yk > y !== yj > y && x < ((xj - xk) * (y - yk)) / (yj - yk) + xk) hit = !hit;
  }
  return hit;
}

/** A PNG of image i: its shape's pixels are exactly the polygon's (centres inside). */
export function shapePng(i: number): Promise<Buffer> {
  const { shape, polygon } = outlineOf(i);
  const px = Buffer.alloc(SIZE * SIZE * 3);
  let s = (i + 1) * 2654435761 + 7;
  for (let p = 0; p < px.length; p++) {
    s = (s * 1103515245 + 12345) >>> 0;
    px[p] = 40 + ((s >>> 16) % 15);
  }
  const colour = shape === 'disc' ? [240, 240, 240] : [130, 130, 200];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) if (inside(polygon, x + 0.5, y + 0.5)) px.set(colour, (y * SIZE + x) * 3);
  }
  return sharp(px, { raw: { width: SIZE, height: SIZE, channels: 3 } }).png().toBuffer();
}

/**
 * `count` shape images written into `dir`: flat (shape-00.png …), or in class folders `dir/<shape>/` for the
 * gallery's "classified folders" upload, whose folder names become the labels.
 */
export async function drawShapes(dir: string, count: number, layout: 'flat' | 'classFolders'): Promise<DrawnShape[]> {
  const out: DrawnShape[] = [];
  for (let i = 0; i < count; i += 1) {
    const { shape, polygon } = outlineOf(i);
    const name = `shape-${String(i).padStart(2, '0')}.png`;
    const folder = layout === 'classFolders' ? path.join(dir, shape) : dir;
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, name);
    writeFileSync(file, await shapePng(i));
    out.push({ name, file, shape, polygon });
  }
  return out;
}

/** LabelMe (the SPEC §5 segmentation format): one JSON per image, named after it, with the shape's polygon. */
export async function writeLabelMeZip(file: string, images: DrawnShape[]): Promise<void> {
  const entries = images.map((img) => ({
    path: img.name.replace(/\.png$/, '.json'),
    data: Buffer.from(
      JSON.stringify({
        version: '5.4.1',
        flags: {},
        shapes: [{ label: img.shape, points: img.polygon, group_id: null, shape_type: 'polygon', flags: {} }],
        imagePath: img.name,
        imageData: null,
        imageHeight: SIZE,
        imageWidth: SIZE,
      }),
    ),
  }));
  writeFileSync(file, await zipOf(entries));
}
