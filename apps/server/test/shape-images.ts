import sharp from 'sharp';

/**
 * The shapes the classification, segmentation and measurement tests draw themselves (the server's and the
 * browser's): one bright disc or one blue-grey square on noisy dark ground, 64×64, whose pixels are exactly
 * their polygon's, so a pico network at 64 px tells them apart within a few epochs.
 */

/** Shapes of the classification and segmentation tests: a bright disc or a grey square on noisy dark ground. */
export const SHAPES = ['disc', 'square'] as const;
export type Shape = (typeof SHAPES)[number];

export interface Drawn {
  shape: Shape;
  /** The outline in image pixels: a 24-gon for the disc, 4 corners for the square. */
  polygon: [number, number][];
}

export const SIZE = 64;

/** Where image i's shape sits: discs and squares alternate, sizes 20 to 30 px, anywhere inside. */
export function drawnOf(i: number): Drawn {
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
export function inside(poly: [number, number][], x: number, y: number): boolean {
  let hit = false;
  for (let k = 0, j = poly.length - 1; k < poly.length; j = k++) {
    const [xk, yk] = poly[k]!;
    const [xj, yj] = poly[j]!;
    if (yk > y !== yj > y && x < ((xj - xk) * (y - yk)) / (yj - yk) + xk) hit = !hit;
  }
  return hit;
}

/** A 64×64 PNG of drawnOf(i): its pixels are exactly the polygon's (centres inside). */
export function shapeImage(i: number): Promise<Buffer> {
  const { shape, polygon } = drawnOf(i);
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

/** A bright bar (rotated rectangle) on noisy ground: the rotated-box MEASURE data. */
export function barOf(i: number) {
  const w = 26 + ((i * 5) % 10);
  const h = 8 + ((i * 3) % 5);
  const angle = -40 + ((i * 23) % 81);
  return { cx: 32 + ((i * 7) % 9) - 4, cy: 32 + ((i * 11) % 9) - 4, w, h, angle };
}
export async function barImage(i: number): Promise<Buffer> {
  const { cx, cy, w, h, angle } = barOf(i);
  const px = Buffer.alloc(64 * 64 * 3);
  let s = (i + 3) * 2654435761;
  const [c, sn] = [Math.cos((angle * Math.PI) / 180), Math.sin((angle * Math.PI) / 180)];
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      s = (s * 1103515245 + 12345) >>> 0;
      const dx = x + 0.5 - cx;
      const dy = y + 0.5 - cy;
      const inside = Math.abs(dx * c + dy * sn) <= w / 2 && Math.abs(-dx * sn + dy * c) <= h / 2;
      px.fill(inside ? 235 : 30 + ((s >>> 16) % 20), (y * 64 + x) * 3, (y * 64 + x) * 3 + 3);
    }
  }
  return sharp(px, { raw: { width: 64, height: 64, channels: 3 } }).png().toBuffer();
}
