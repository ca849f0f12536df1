import { imagePoint, type ImagePoint } from '../types.js';
import type { Pair } from './polygon.js';

/** Monotone chain; collinear points are dropped, so the result has no zero-length edges. */
export function convexHull(points: readonly Pair[]): ImagePoint[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([x, y]) => imagePoint(x, y));
  if (pts.length < 3) return pts;
  const turn = (o: ImagePoint, a: ImagePoint, b: ImagePoint) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower: ImagePoint[] = [];
  for (const p of pts) {
    while (lower.length >= 2 && turn(lower[lower.length - 2]!, lower[lower.length - 1]!, p) <= 0) lower.pop();
    lower.push(p);
  }
  const upper: ImagePoint[] = [];
  for (let i = pts.length - 1; i >= 0; i--) {
    const p = pts[i]!;
    while (upper.length >= 2 && turn(upper[upper.length - 2]!, upper[upper.length - 1]!, p) <= 0) upper.pop();
    upper.push(p);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

export interface MinAreaRect {
  /** Side along `direction`, and the side across it. */
  readonly length: number;
  readonly breadth: number;
  /** Unit vector of the `length` side. */
  readonly direction: ImagePoint;
}

/**
 * Minimum-area enclosing rectangle by rotating calipers (one side lies on a hull edge): O(h) after the hull,
 * so a 10,000-vertex outline measures instantly. A hull of fewer than 3 points is a segment or a point.
 */
export function minAreaRect(hull: readonly ImagePoint[]): MinAreaRect {
  const n = hull.length;
  if (n < 3) {
    const a = hull[0] ?? imagePoint(0, 0);
    const b = hull[n - 1] ?? a;
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    return { length: len, breadth: 0, direction: len > 0 ? imagePoint((b.x - a.x) / len, (b.y - a.y) / len) : imagePoint(1, 0) };
  }
  const at = (i: number) => hull[i % n]!;
  let best: MinAreaRect | null = null;
  let bestArea = Infinity;
  let far = 0;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < n; i++) {
    const a = at(i);
    const b = at(i + 1);
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const u = imagePoint((b.x - a.x) / len, (b.y - a.y) / len);
    const along = (p: ImagePoint) => (p.x - a.x) * u.x + (p.y - a.y) * u.y;
    const across = (p: ImagePoint) => Math.abs((p.x - a.x) * u.y - (p.y - a.y) * u.x);
    if (i === 0) {
      for (let j = 0; j < n; j++) {
        if (across(at(j)) > across(at(far))) far = j;
        if (along(at(j)) > along(at(hi))) hi = j;
        if (along(at(j)) < along(at(lo))) lo = j;
      }
    } else {
      // On a convex hull each caliper only moves forward as the edge turns; n steps bound a degenerate loop.
      for (let s = 0; s < n && across(at(far + 1)) >= across(at(far)); s++) far = (far + 1) % n;
      for (let s = 0; s < n && along(at(hi + 1)) >= along(at(hi)); s++) hi = (hi + 1) % n;
      for (let s = 0; s < n && along(at(lo + 1)) <= along(at(lo)); s++) lo = (lo + 1) % n;
    }
    const length = along(at(hi)) - along(at(lo));
    const breadth = across(at(far));
    if (length * breadth < bestArea) {
      bestArea = length * breadth;
      best = { length, breadth, direction: u };
    }
  }
  return best!;
}
