import type { Geometry, RBoxGeometry } from '@loupe/contracts';
import { imagePoint, type Degrees, type ImagePoint } from '../types.js';
import { normalizeBox } from './box.js';
import { rotate, toRadians } from './point.js';
import { bounds, translate, type Bounds } from './shape.js';

export interface ImageSize {
  readonly width: number;
  readonly height: number;
}

const clampNum = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

export function clampPoint(p: ImagePoint, image: ImageSize): ImagePoint {
  const x = clampNum(p.x, 0, image.width);
  const y = clampNum(p.y, 0, image.height);
  return x === p.x && y === p.y ? p : imagePoint(x, y);
}

/**
 * Clamps any geometry into the image. Returns the same object when nothing changes, so history snapshots and
 * the renderer's caches can compare by reference. A rotated box cannot be clipped and stay a rotated box, so it
 * shrinks about its (clamped) centre until all four corners are inside.
 */
export function clampToImage(g: Geometry, image: ImageSize): Geometry {
  const { width: W, height: H } = image;
  if (g.kind === 'box') {
    const n = normalizeBox(g);
    const c = { ...n, x1: clampNum(n.x1, 0, W), y1: clampNum(n.y1, 0, H), x2: clampNum(n.x2, 0, W), y2: clampNum(n.y2, 0, H) };
    return c.x1 === g.x1 && c.y1 === g.y1 && c.x2 === g.x2 && c.y2 === g.y2 ? g : c;
  }
  if (g.kind === 'polygon') {
    // Loaded sets are almost always inside: check before copying 2,000 polygons' point arrays on every load.
    if (g.points.every((q) => q[0] >= 0 && q[0] <= W && q[1] >= 0 && q[1] <= H)) return g;
    let changed = false;
    const points = g.points.map((q): [number, number] => {
      const x = clampNum(q[0], 0, W);
      const y = clampNum(q[1], 0, H);
      if (x === q[0] && y === q[1]) return q;
      changed = true;
      return [x, y];
    });
    return changed ? { ...g, points } : g;
  }
  return clampRBox(g, image);
}

function clampRBox(r: RBoxGeometry, image: ImageSize): RBoxGeometry {
  const { width: W, height: H } = image;
  const cx = clampNum(r.cx, 0, W);
  const cy = clampNum(r.cy, 0, H);
  const w = Math.abs(r.w);
  const h = Math.abs(r.h);
  let s = 1;
  const a = toRadians(r.angle as Degrees);
  for (const [sx, sy] of [[-1, -1], [1, -1], [1, 1], [-1, 1]] as const) {
    const o = rotate(imagePoint((sx * w) / 2, (sy * h) / 2), a);
    if (o.x > 0) s = Math.min(s, (W - cx) / o.x);
    if (o.x < 0) s = Math.min(s, cx / -o.x);
    if (o.y > 0) s = Math.min(s, (H - cy) / o.y);
    if (o.y < 0) s = Math.min(s, cy / -o.y);
  }
  s = Math.max(0, s);
  if (s === 1 && cx === r.cx && cy === r.cy && w === r.w && h === r.h) return r;
  return { ...r, cx, cy, w: w * s, h: h * s };
}

/**
 * The shift that keeps `b` inside the image, as close to (dx, dy) as possible: moving or pasting a shape slides
 * it along the border instead of squashing it. A shape wider than the image is pinned to the left/top edge.
 */
export function clampShift(b: Bounds, dx: number, dy: number, image: ImageSize): readonly [number, number] {
  const fit = (d: number, lo: number, hi: number, max: number) => {
    const min = -lo;
    const top = max - hi;
    return top < min ? min : clampNum(d, min, top);
  };
  return [fit(dx, b.minX, b.maxX, image.width), fit(dy, b.minY, b.maxY, image.height)];
}

/** Slides a geometry inside the image when it fits, then clamps whatever still sticks out. */
export function fitInside(g: Geometry, image: ImageSize): Geometry {
  const [dx, dy] = clampShift(bounds(g), 0, 0, image);
  return clampToImage(translate(g, dx, dy), image);
}
