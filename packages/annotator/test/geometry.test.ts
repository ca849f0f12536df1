import type { RBoxGeometry } from '@loupe/contracts';
import { describe, expect, it } from 'vitest';
import {
  area,
  bounds,
  centroid,
  clampToImage,
  contains,
  deleteVertex,
  fitInside,
  imagePoint,
  insertVertex,
  normalizeDegrees,
  polygonArea,
  rboxCorners,
  rboxFromEdge,
  resizeBox,
  resizeRBox,
  rotateRBox,
  translate,
  type Degrees,
} from '../src/index.js';
import { box, polygon, rbox } from './driver.js';

const p = imagePoint;
const image = { width: 100, height: 80 };
const near = (a: { x: number; y: number }, x: number, y: number) => {
  expect(a.x).toBeCloseTo(x, 9);
  expect(a.y).toBeCloseTo(y, 9);
};

describe('area', () => {
  it('of a box, a rotated box and a polygon by the shoelace formula, whatever the winding', () => {
    expect(area(box(10, 10, 30, 20))).toBe(200);
    expect(area(box(30, 20, 10, 10))).toBe(200);
    expect(area(rbox(50, 50, 20, 10, 33))).toBeCloseTo(200);
    expect(polygonArea([[0, 0], [4, 0], [4, 3]])).toBe(6);
    expect(polygonArea([[4, 3], [4, 0], [0, 0]])).toBe(6);
  });

  it('is zero for degenerate and empty outlines', () => {
    expect(polygonArea([])).toBe(0);
    expect(area(polygon([0, 0], [5, 5], [10, 10]))).toBe(0);
    expect(area(box(5, 5, 5, 20))).toBe(0);
  });
});

describe('contains', () => {
  it('a box includes its border', () => {
    expect(contains(box(10, 10, 20, 20), p(10, 20))).toBe(true);
    expect(contains(box(10, 10, 20, 20), p(20.01, 15))).toBe(false);
  });

  it('a rotated box tests in its own frame', () => {
    const r = rbox(50, 50, 40, 4, 45);
    expect(contains(r, p(60, 60))).toBe(true); // along the rotated long axis
    expect(contains(r, p(65, 50))).toBe(false); // inside the unrotated box, outside the rotated one
  });

  it('a concave polygon excludes its notch', () => {
    const u = polygon([0, 0], [30, 0], [30, 30], [20, 30], [20, 10], [10, 10], [10, 30], [0, 30]);
    expect(contains(u, p(5, 20))).toBe(true);
    expect(contains(u, p(15, 20))).toBe(false);
  });
});

describe('rotated box', () => {
  it('has corners clockwise from its own top-left; angles are clockwise (y down)', () => {
    const [tl, tr, br, bl] = rboxCorners(rbox(0, 0, 20, 10, 90) as RBoxGeometry);
    near(tl!, 5, -10);
    near(tr!, 5, 10);
    near(br!, -5, 10);
    near(bl!, -5, -10);
  });

  it('resizes in its own frame: the opposite corner stays put and the angle is kept', () => {
    const r = rbox(50, 40, 20, 10, 30) as RBoxGeometry;
    const [tl, , br] = rboxCorners(r);
    const grown = resizeRBox(r, { kind: 'corner', index: 2 }, imagePoint(br!.x + 10, br!.y + 5));
    near(rboxCorners(grown)[0]!, tl!.x, tl!.y);
    expect(grown.angle).toBe(30);
    expect(grown.w * grown.h).toBeGreaterThan(200);
  });

  it('resizes by an edge along its own axis only', () => {
    const r = rbox(50, 40, 20, 10, 90) as RBoxGeometry;
    // Edge 1 (right, in its frame) points down on screen at 90°: pull it 6 px further down.
    const right = resizeRBox(r, { kind: 'edge', index: 1 }, imagePoint(50, 56));
    expect(right.w).toBeCloseTo(26);
    expect(right.h).toBeCloseTo(10);
    near(imagePoint(right.cx, right.cy), 50, 43);
  });

  it('flips instead of going negative when dragged past the opposite side', () => {
    const r = rbox(50, 40, 20, 10, 0) as RBoxGeometry;
    const flipped = resizeRBox(r, { kind: 'edge', index: 1 }, imagePoint(30, 40));
    expect(flipped.w).toBeCloseTo(10);
    expect(flipped.cx).toBeCloseTo(35);
  });

  it('rotates and keeps the angle in (-180, 180]', () => {
    const r = rbox(0, 0, 10, 10, 170) as RBoxGeometry;
    expect(rotateRBox(r, 20 as Degrees).angle).toBe(-170);
    expect(rotateRBox(r, 10 as Degrees).angle).toBe(180);
    expect(normalizeDegrees(-180)).toBe(180);
    expect(Object.is(normalizeDegrees(-360), 0)).toBe(true);
  });

  it('is built from a first edge and a height point on either side', () => {
    const below = rboxFromEdge(p(10, 10), p(30, 10), p(0, 18));
    expect(below).toMatchObject({ cx: 20, cy: 14, w: 20, h: 8, angle: 0 });
    const above = rboxFromEdge(p(10, 10), p(30, 10), p(25, 2));
    expect(above).toMatchObject({ cx: 20, cy: 6, w: 20, h: 8, angle: 0 });
    const diagonal = rboxFromEdge(p(0, 0), p(10, 10), null);
    expect(diagonal.angle).toBeCloseTo(45);
    expect(diagonal.h).toBe(0);
  });
});

describe('box resize', () => {
  it('moves one corner or edge and normalises a flip', () => {
    expect(resizeBox(box(10, 10, 20, 20) as never, { kind: 'corner', index: 0 }, p(5, 2))).toMatchObject({ x1: 5, y1: 2, x2: 20, y2: 20 });
    expect(resizeBox(box(10, 10, 20, 20) as never, { kind: 'edge', index: 3 }, p(30, 99))).toMatchObject({ x1: 20, y1: 10, x2: 30, y2: 20 });
  });
});

describe('clamp', () => {
  it('clips boxes and polygon points to the image and returns the same object when already inside', () => {
    expect(clampToImage(box(-5, 10, 120, 90), image)).toMatchObject({ x1: 0, y1: 10, x2: 100, y2: 80 });
    const inside = polygon([1, 1], [10, 1], [5, 5]);
    expect(clampToImage(inside, image)).toBe(inside);
    expect(clampToImage(polygon([-1, 1], [200, 1], [5, 90]), image)).toMatchObject({ points: [[0, 1], [100, 1], [5, 80]] });
  });

  it('shrinks a rotated box about its centre until every corner is inside', () => {
    const r = clampToImage(rbox(90, 40, 40, 20, 30), image) as RBoxGeometry;
    expect(r.angle).toBe(30);
    expect(r.w / r.h).toBeCloseTo(2);
    for (const c of rboxCorners(r)) {
      expect(c.x).toBeGreaterThanOrEqual(-1e-9);
      expect(c.x).toBeLessThanOrEqual(100 + 1e-9);
      expect(c.y).toBeGreaterThanOrEqual(-1e-9);
      expect(c.y).toBeLessThanOrEqual(80 + 1e-9);
    }
    // A corner touches the border: the box shrank no more than needed.
    expect(rboxCorners(r).some((c) => Math.abs(c.x - 100) < 1e-9)).toBe(true);
  });

  it('brings a rotated box with its centre outside back in', () => {
    const r = clampToImage(rbox(150, -10, 10, 10, 0), image) as RBoxGeometry;
    expect([r.cx, r.cy, r.w, r.h]).toEqual([100, 0, 0, 0]);
  });

  it('fitInside slides rather than squashes when the shape fits', () => {
    expect(fitInside(box(95, 75, 105, 85), image)).toMatchObject({ x1: 90, y1: 70, x2: 100, y2: 80 });
    expect(fitInside(box(-10, 0, 150, 10), image)).toMatchObject({ x1: 0, x2: 100 });
  });
});

describe('polygon vertices', () => {
  const tri = polygon([0, 0], [10, 0], [0, 10]);

  it('inserts after an index and deletes down to 3, never below', () => {
    const quad = insertVertex(tri as never, 0, p(5, -5));
    expect(quad.points).toEqual([[0, 0], [5, -5], [10, 0], [0, 10]]);
    expect(deleteVertex(quad, 1).points).toEqual((tri as { points: unknown }).points);
    expect(deleteVertex(tri as never, 0)).toBe(tri);
  });
});

describe('bounds, translate, centroid', () => {
  it('work on every kind', () => {
    expect(bounds(rbox(10, 10, 4, 2, 90))).toEqual({ minX: 9, minY: 8, maxX: 11, maxY: 12 });
    expect(translate(polygon([0, 0], [2, 0], [0, 2]), 1, 1)).toMatchObject({ points: [[1, 1], [3, 1], [1, 3]] });
    near(centroid(polygon([0, 0], [6, 0], [0, 6])), 2, 2);
    near(centroid(polygon([0, 0], [1, 1], [2, 2])), 1, 1);
  });
});
