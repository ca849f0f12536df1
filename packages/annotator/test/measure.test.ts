import { describe, expect, it } from 'vitest';
import { convexHull, imagePoint, measure, minAreaRect } from '../src/index.js';
import { box, polygon, rbox } from './driver.js';

describe('measure (SPEC §3 annotation box fields)', () => {
  it('a box: its corners, no rotation, the longer side as major axis', () => {
    expect(measure(box(10, 20, 50, 30))).toEqual({
      x1: 10, y1: 20, x2: 50, y2: 30, angle: 0, area: 400, majorAxis: 40, minorAxis: 10, majorAxisAngle: 0, cx: 30, cy: 25,
    });
    expect(measure(box(0, 0, 10, 40)).majorAxisAngle).toBe(90);
  });

  it('a rotated box: bounds of its corners, its own angle, a major axis that turns with the taller side', () => {
    const m = measure(rbox(50, 50, 10, 40, 30));
    expect(m.angle).toBe(30);
    expect(m.majorAxis).toBe(40);
    expect(m.minorAxis).toBe(10);
    expect(m.majorAxisAngle).toBe(120);
    expect(m.area).toBe(400);
    expect([m.cx, m.cy]).toEqual([50, 50]);
    expect(m.x1).toBeCloseTo(50 - (5 * Math.cos(Math.PI / 6) + 20 * Math.sin(Math.PI / 6)));
    expect(measure(rbox(0, 0, 10, 4, -170)).majorAxisAngle).toBeCloseTo(10);
  });

  it('a polygon: the minimum-area rectangle gives the axes, the shoelace the area, the area centroid the centre', () => {
    // A 40×10 rectangle turned by 30°, with an extra vertex in the middle of one side.
    const c = Math.cos(Math.PI / 6);
    const s = Math.sin(Math.PI / 6);
    const at = (x: number, y: number): [number, number] => [100 + x * c - y * s, 100 + x * s + y * c];
    const m = measure(polygon(at(-20, -5), at(0, -5), at(20, -5), at(20, 5), at(-20, 5)));
    expect(m.majorAxis).toBeCloseTo(40);
    expect(m.minorAxis).toBeCloseTo(10);
    expect(m.majorAxisAngle).toBeCloseTo(30);
    expect(m.angle).toBeCloseTo(30);
    expect(m.area).toBeCloseTo(400);
    expect(m.cx).toBeCloseTo(100);
    expect(m.cy).toBeCloseTo(100);
  });

  it('a polygon whose major axis points up-left reports an angle in (-90, 90]', () => {
    const m = measure(polygon([0, 0], [30, -30], [31, -29], [1, 1]));
    expect(m.majorAxisAngle).toBeCloseTo(135);
    expect(m.angle).toBeCloseTo(-45);
  });

  it('a degenerate polygon measures as a segment', () => {
    const m = measure(polygon([0, 0], [5, 0], [10, 0]));
    expect(m.area).toBe(0);
    expect(m.majorAxis).toBeCloseTo(10);
    expect(m.minorAxis).toBe(0);
  });
});

describe('minimum-area rectangle', () => {
  /** Every hull edge as a side, all points projected: the O(n²) answer the calipers must match. */
  function bruteForce(points: [number, number][]): number {
    const hull = convexHull(points);
    let best = Infinity;
    for (let i = 0; i < hull.length; i++) {
      const a = hull[i]!;
      const b = hull[(i + 1) % hull.length]!;
      const len = Math.hypot(b.x - a.x, b.y - a.y);
      const u = imagePoint((b.x - a.x) / len, (b.y - a.y) / len);
      const along = hull.map((q) => q.x * u.x + q.y * u.y);
      const across = hull.map((q) => -q.x * u.y + q.y * u.x);
      best = Math.min(best, (Math.max(...along) - Math.min(...along)) * (Math.max(...across) - Math.min(...across)));
    }
    return best;
  }

  it('matches the brute force on random point sets', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 100;
    for (let trial = 0; trial < 200; trial++) {
      const points = Array.from({ length: 3 + (trial % 40) }, (): [number, number] => [rand(), rand() * (trial % 3 === 0 ? 0.2 : 1)]);
      const r = minAreaRect(convexHull(points));
      expect(r.length * r.breadth).toBeCloseTo(bruteForce(points), 6);
    }
  });

  it('handles an empty or single-point input', () => {
    expect(minAreaRect([])).toMatchObject({ length: 0, breadth: 0 });
    expect(minAreaRect(convexHull([[3, 3]]))).toMatchObject({ length: 0, breadth: 0 });
  });
});
