import type { RBoxGeometry } from '@loupe/contracts';
import { imagePoint, type Degrees, type ImagePoint, type Radians } from '../types.js';
import type { ResizeHandle } from './box.js';
import { add, distance, dot, midpoint, normalizeDegrees, rotate, sub, toDegrees, toRadians } from './point.js';

const centre = (r: RBoxGeometry) => imagePoint(r.cx, r.cy);
const theta = (r: RBoxGeometry) => toRadians(r.angle as Degrees);

/** A point in the box's own frame: origin at the centre, x along the width, y along the height. */
export function toLocal(r: RBoxGeometry, p: ImagePoint): ImagePoint {
  return rotate(sub(p, centre(r)), -theta(r) as Radians);
}

export function fromLocal(r: RBoxGeometry, p: ImagePoint): ImagePoint {
  return add(centre(r), rotate(p, theta(r)));
}

/** Corners clockwise from the top-left of the box's own frame (before rotation). */
export function rboxCorners(r: RBoxGeometry): ImagePoint[] {
  const hw = r.w / 2;
  const hh = r.h / 2;
  return [imagePoint(-hw, -hh), imagePoint(hw, -hh), imagePoint(hw, hh), imagePoint(-hw, hh)].map((p) => fromLocal(r, p));
}

export function rboxContains(r: RBoxGeometry, p: ImagePoint): boolean {
  const l = toLocal(r, p);
  return Math.abs(l.x) <= r.w / 2 && Math.abs(l.y) <= r.h / 2;
}

/**
 * Resize in the box's own frame: the opposite corner (or edge) keeps its image position and the angle is kept,
 * so a rotated box grows along its own axes rather than the screen's.
 */
export function resizeRBox(r: RBoxGeometry, handle: ResizeHandle, to: ImagePoint): RBoxGeometry {
  const l = toLocal(r, to);
  const hw = r.w / 2;
  const hh = r.h / 2;
  let [minX, maxX, minY, maxY] = [-hw, hw, -hh, hh];
  const i = handle.index;
  if (handle.kind === 'corner') {
    if (i === 0 || i === 3) minX = l.x;
    else maxX = l.x;
    if (i === 0 || i === 1) minY = l.y;
    else maxY = l.y;
  } else if (i === 0) minY = l.y;
  else if (i === 1) maxX = l.x;
  else if (i === 2) maxY = l.y;
  else minX = l.x;
  const c = fromLocal(r, imagePoint((minX + maxX) / 2, (minY + maxY) / 2));
  return { ...r, cx: c.x, cy: c.y, w: Math.abs(maxX - minX), h: Math.abs(maxY - minY) };
}

export function rotateRBox(r: RBoxGeometry, by: Degrees): RBoxGeometry {
  return { ...r, angle: normalizeDegrees(r.angle + by) };
}

/**
 * The rotated-box tool's construction: the first edge runs p1 → p2 (its length is the width, its direction the
 * angle) and the box extends from that edge to the side of `heightPoint`.
 */
export function rboxFromEdge(p1: ImagePoint, p2: ImagePoint, heightPoint: ImagePoint | null): RBoxGeometry {
  const w = distance(p1, p2);
  const angle = w > 0 ? normalizeDegrees(toDegrees(Math.atan2(p2.y - p1.y, p2.x - p1.x) as Radians)) : (0 as Degrees);
  // The edge direction turned 90° clockwise, from the edge vector itself so axis-aligned edges stay exact.
  const normal = w > 0 ? imagePoint(-(p2.y - p1.y) / w, (p2.x - p1.x) / w) : imagePoint(0, 1);
  const h = heightPoint ? dot(sub(heightPoint, p1), normal) : 0;
  const c = add(midpoint(p1, p2), imagePoint((normal.x * h) / 2, (normal.y * h) / 2));
  return { kind: 'rbox', cx: c.x, cy: c.y, w, h: Math.abs(h), angle };
}

/** Where the rotate handle sits: `offset` image px beyond the middle of the top edge, in the box's frame. */
export function rotateHandlePoint(r: RBoxGeometry, offset: number): ImagePoint {
  return fromLocal(r, imagePoint(0, -r.h / 2 - offset));
}
