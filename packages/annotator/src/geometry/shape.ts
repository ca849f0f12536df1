import type { Geometry } from '@loupe/contracts';
import { imagePoint, type ImagePoint } from '../types.js';
import { boxArea, boxContains, boxCorners } from './box.js';
import { fromPair } from './point.js';
import { distanceToOutline, polygonArea, polygonCentroid, polygonContains } from './polygon.js';
import { rboxContains, rboxCorners } from './rbox.js';

/** Geometry-kind dispatch, so the tools and the editor never switch on `kind` themselves. */
export interface Bounds {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

/** The outline's vertices in drawing order (corners for boxes). */
export function outline(g: Geometry): ImagePoint[] {
  if (g.kind === 'box') return boxCorners(g);
  if (g.kind === 'rbox') return rboxCorners(g);
  return g.points.map(fromPair);
}

export function area(g: Geometry): number {
  if (g.kind === 'box') return boxArea(g);
  if (g.kind === 'rbox') return Math.abs(g.w * g.h);
  return polygonArea(g.points);
}

export function boundsOfPoints(points: readonly ImagePoint[]): Bounds {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    if (p.x < minX) minX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.x > maxX) maxX = p.x;
    if (p.y > maxY) maxY = p.y;
  }
  return { minX, minY, maxX, maxY };
}

export function bounds(g: Geometry): Bounds {
  if (g.kind === 'box') return { minX: Math.min(g.x1, g.x2), minY: Math.min(g.y1, g.y2), maxX: Math.max(g.x1, g.x2), maxY: Math.max(g.y1, g.y2) };
  if (g.kind === 'rbox') return boundsOfPoints(rboxCorners(g));
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of g.points) {
    if (x < minX) minX = x;
    if (y < minY) minY = y;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY };
}

export function contains(g: Geometry, p: ImagePoint): boolean {
  if (g.kind === 'box') return boxContains(g, p);
  if (g.kind === 'rbox') return rboxContains(g, p);
  return polygonContains(g.points, p);
}

export function distanceToEdge(g: Geometry, p: ImagePoint): number {
  return distanceToOutline(outline(g), p);
}

export function translate(g: Geometry, dx: number, dy: number): Geometry {
  if (dx === 0 && dy === 0) return g;
  if (g.kind === 'box') return { ...g, x1: g.x1 + dx, y1: g.y1 + dy, x2: g.x2 + dx, y2: g.y2 + dy };
  if (g.kind === 'rbox') return { ...g, cx: g.cx + dx, cy: g.cy + dy };
  return { ...g, points: g.points.map(([x, y]): [number, number] => [x + dx, y + dy]) };
}

export function centroid(g: Geometry): ImagePoint {
  if (g.kind === 'box') return imagePoint((g.x1 + g.x2) / 2, (g.y1 + g.y2) / 2);
  if (g.kind === 'rbox') return imagePoint(g.cx, g.cy);
  return polygonCentroid(g.points);
}

export function boundsIntersect(a: Bounds, b: Bounds): boolean {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}

export function boundsInside(inner: Bounds, outer: Bounds): boolean {
  return inner.minX >= outer.minX && inner.maxX <= outer.maxX && inner.minY >= outer.minY && inner.maxY <= outer.maxY;
}

export function unionBounds(all: readonly Bounds[]): Bounds {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const b of all) {
    minX = Math.min(minX, b.minX);
    minY = Math.min(minY, b.minY);
    maxX = Math.max(maxX, b.maxX);
    maxY = Math.max(maxY, b.maxY);
  }
  return { minX, minY, maxX, maxY };
}
