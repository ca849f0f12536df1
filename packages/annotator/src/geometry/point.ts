import { imagePoint, type Degrees, type ImagePoint, type Radians } from '../types.js';

/** Vector helpers in image space. Differences of image points stay image-space vectors, hence one point type. */
export const add = (a: ImagePoint, b: ImagePoint) => imagePoint(a.x + b.x, a.y + b.y);
export const sub = (a: ImagePoint, b: ImagePoint) => imagePoint(a.x - b.x, a.y - b.y);
export const scaleBy = (a: ImagePoint, k: number) => imagePoint(a.x * k, a.y * k);
export const dot = (a: ImagePoint, b: ImagePoint) => a.x * b.x + a.y * b.y;
export const cross = (a: ImagePoint, b: ImagePoint) => a.x * b.y - a.y * b.x;
export const length = (a: ImagePoint) => Math.hypot(a.x, a.y);
export const distance = (a: ImagePoint, b: ImagePoint) => Math.hypot(a.x - b.x, a.y - b.y);
export const midpoint = (a: ImagePoint, b: ImagePoint) => imagePoint((a.x + b.x) / 2, (a.y + b.y) / 2);

/** Rotation by a positive angle turns clockwise on screen, because the image y axis points down. */
export function rotate(p: ImagePoint, angle: Radians): ImagePoint {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return imagePoint(p.x * c - p.y * s, p.x * s + p.y * c);
}

export const toRadians = (d: Degrees) => ((d * Math.PI) / 180) as Radians;
export const toDegrees = (r: Radians) => ((r * 180) / Math.PI) as Degrees;

/** Angles are stored in (-180, 180] so that equal rotations compare equal. */
export function normalizeDegrees(d: number): Degrees {
  let a = d % 360;
  if (a <= -180) a += 360;
  if (a > 180) a -= 360;
  // -0 would make snapshots and equality checks disagree with 0.
  return (a === 0 ? 0 : a) as Degrees;
}

export const fromPair = (p: readonly [number, number]) => imagePoint(p[0], p[1]);
export const toPair = (p: ImagePoint): [number, number] => [p.x, p.y];
