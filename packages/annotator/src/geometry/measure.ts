import type { Geometry } from '@loupe/contracts';
import type { Degrees, Radians } from '../types.js';
import { convexHull, minAreaRect } from './hull.js';
import { normalizeDegrees, toDegrees } from './point.js';
import { polygonArea, polygonCentroid } from './polygon.js';
import { bounds } from './shape.js';

/**
 * SPEC §3 annotation box fields. Image px and degrees clockwise (image y axis down). x1,y1 / x2,y2 are the
 * top-left and bottom-right of the axis-aligned bounds. majorAxisAngle is the direction of the major axis in
 * [0, 180); `angle` is the shape's own rotation in (-180, 180].
 */
export interface Measurement {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  readonly angle: Degrees;
  readonly area: number;
  readonly majorAxis: number;
  readonly minorAxis: number;
  readonly majorAxisAngle: Degrees;
  readonly cx: number;
  readonly cy: number;
}

/** Axes have no head or tail: 190° and 10° are the same axis. */
function axisAngle(d: number): Degrees {
  const a = ((d % 180) + 180) % 180;
  return (a === 0 ? 0 : a) as Degrees;
}

/**
 * Polygons are measured by their minimum-area enclosing rectangle (as OpenCV's minAreaRect, which inspection
 * users compare against): its long side is the major axis and gives the angle. Second moments would make the
 * axes of a thin L-shape depend on its mass rather than its extent, which is not what a caliper reads.
 */
export function measure(g: Geometry): Measurement {
  const b = bounds(g);
  const box = { x1: b.minX, y1: b.minY, x2: b.maxX, y2: b.maxY };
  if (g.kind === 'box') {
    const w = b.maxX - b.minX;
    const h = b.maxY - b.minY;
    return { ...box, angle: 0 as Degrees, area: w * h, majorAxis: Math.max(w, h), minorAxis: Math.min(w, h), majorAxisAngle: (w >= h ? 0 : 90) as Degrees, cx: (b.minX + b.maxX) / 2, cy: (b.minY + b.maxY) / 2 };
  }
  if (g.kind === 'rbox') {
    const w = Math.abs(g.w);
    const h = Math.abs(g.h);
    return {
      ...box,
      angle: normalizeDegrees(g.angle),
      area: w * h,
      majorAxis: Math.max(w, h),
      minorAxis: Math.min(w, h),
      majorAxisAngle: axisAngle(w >= h ? g.angle : g.angle + 90),
      cx: g.cx,
      cy: g.cy,
    };
  }
  const rect = minAreaRect(convexHull(g.points));
  const major = rect.length >= rect.breadth;
  const dir = toDegrees(Math.atan2(rect.direction.y, rect.direction.x) as Radians);
  const majorAxisAngle = axisAngle(major ? dir : dir + 90);
  const c = polygonCentroid(g.points);
  return {
    ...box,
    angle: (majorAxisAngle > 90 ? majorAxisAngle - 180 : majorAxisAngle) as Degrees,
    area: polygonArea(g.points),
    majorAxis: Math.max(rect.length, rect.breadth),
    minorAxis: Math.min(rect.length, rect.breadth),
    majorAxisAngle,
    cx: c.x,
    cy: c.y,
  };
}
