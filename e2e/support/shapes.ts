import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { drawnOf, shapeImage, SHAPES, SIZE, type Shape } from '../../apps/server/test/shape-images.js';
import { zipOf } from './images.js';

/**
 * The classification and segmentation specs' data: 64×64 images of one bright disc or one blue-grey square on
 * noisy dark ground (as the server's task tests draw them), so a pico network at 64 px tells them apart within a
 * few epochs. Class folders for the folder upload, a LabelMe ZIP of the shapes' polygons for segmentation.
 */

export { SHAPES, SIZE, type Shape };

export interface DrawnShape {
  name: string;
  file: string;
  shape: Shape;
  /** The outline in image pixels: a 24-gon for the disc, 4 corners for the square. */
  polygon: [number, number][];
}

/** Image i's shape and outline (apps/server/test/shape-images.ts, which the server's tests draw from too). */
export const outlineOf = (i: number): { shape: Shape; polygon: [number, number][] } => drawnOf(i);

/** A PNG of image i: its shape's pixels are exactly the polygon's (centres inside). */
export const shapePng = (i: number): Promise<Buffer> => shapeImage(i);

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
