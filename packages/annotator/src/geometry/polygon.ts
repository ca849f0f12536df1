import type { PolygonGeometry } from '@loupe/contracts';
import { imagePoint, type ImagePoint } from '../types.js';

export type Pair = readonly [number, number];

/** Shoelace formula; positive when the points run clockwise on screen (image y axis down). */
export function signedArea(points: readonly Pair[]): number {
  let s = 0;
  for (let i = 0, n = points.length; i < n; i++) {
    const [x1, y1] = points[i]!;
    const [x2, y2] = points[(i + 1) % n]!;
    s += x1 * y2 - x2 * y1;
  }
  return s / 2;
}

export const polygonArea = (points: readonly Pair[]) => Math.abs(signedArea(points));

/** Even-odd rule, so a self-intersecting outline behaves the way the canvas fills it. */
export function polygonContains(points: readonly Pair[], p: ImagePoint): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const [xi, yi] = points[i]!;
    const [xj, yj] = points[j]!;
    if (yi > p.y !== yj > p.y && p.x < ((xj - xi) * (p.y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

export function distanceToSegment(p: ImagePoint, a: ImagePoint, b: ImagePoint): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** Distance to the closed outline through `points`. */
export function distanceToOutline(points: readonly ImagePoint[], p: ImagePoint): number {
  let best = Infinity;
  for (let i = 0, n = points.length; i < n; i++) {
    best = Math.min(best, distanceToSegment(p, points[i]!, points[(i + 1) % n]!));
  }
  return best;
}

/** Area centroid; falls back to the vertex mean for a degenerate (zero-area) outline. */
export function polygonCentroid(points: readonly Pair[]): ImagePoint {
  const a = signedArea(points);
  if (points.length === 0) return imagePoint(0, 0);
  if (Math.abs(a) < 1e-12) {
    const sx = points.reduce((s, q) => s + q[0], 0);
    const sy = points.reduce((s, q) => s + q[1], 0);
    return imagePoint(sx / points.length, sy / points.length);
  }
  let cx = 0;
  let cy = 0;
  for (let i = 0, n = points.length; i < n; i++) {
    const [x1, y1] = points[i]!;
    const [x2, y2] = points[(i + 1) % n]!;
    const f = x1 * y2 - x2 * y1;
    cx += (x1 + x2) * f;
    cy += (y1 + y2) * f;
  }
  return imagePoint(cx / (6 * a), cy / (6 * a));
}

/** Inserts `p` after vertex `index` (so on the edge index → index + 1). */
export function insertVertex(g: PolygonGeometry, index: number, p: ImagePoint): PolygonGeometry {
  const points = g.points.slice();
  points.splice(index + 1, 0, [p.x, p.y]);
  return { ...g, points };
}

/** A polygon keeps at least 3 vertices: deleting below that returns the polygon unchanged. */
export function deleteVertex(g: PolygonGeometry, index: number): PolygonGeometry {
  if (g.points.length <= 3 || index < 0 || index >= g.points.length) return g;
  return { ...g, points: g.points.filter((_, i) => i !== index) };
}

export function moveVertex(g: PolygonGeometry, index: number, p: ImagePoint): PolygonGeometry {
  return { ...g, points: g.points.map((q, i): [number, number] => (i === index ? [p.x, p.y] : q)) };
}
