import { describe, expect, it } from 'vitest';
import { HIT_TOLERANCE_PX, ROTATE_HANDLE_OFFSET_PX, handlesOf, hitTest, imagePoint, type Shape } from '../src/index.js';
import { box, polygon, rbox, shapes } from './driver.js';

const p = imagePoint;

describe('hitTest', () => {
  const list = shapes(box(0, 0, 100, 100), box(50, 50, 150, 150), polygon([200, 0], [300, 0], [250, 80]));

  it('picks the topmost shape under the point', () => {
    expect(hitTest(list, p(75, 75), 1)?.shapeId).toBe('s2');
    expect(hitTest(list, p(25, 25), 1)?.shapeId).toBe('s1');
    expect(hitTest(list, p(250, 20), 1)?.shapeId).toBe('s3');
    expect(hitTest(list, p(400, 400), 1)).toBeNull();
  });

  it('counts the outline within the tolerance, which the caller scales by the zoom', () => {
    // 4 image px left of the first box: within 6 screen px at zoom 1 (6 image px), not at zoom 2 (3 image px).
    expect(hitTest(list, p(-4, 20), HIT_TOLERANCE_PX / 1)?.shapeId).toBe('s1');
    expect(hitTest(list, p(-4, 20), HIT_TOLERANCE_PX / 2)).toBeNull();
    // Exactly at the tolerance still counts.
    expect(hitTest(list, p(-3, 20), HIT_TOLERANCE_PX / 2)?.shapeId).toBe('s1');
  });

  it('tries handles before shapes and takes the nearest one', () => {
    const handles = handlesOf(list[0]!, 1);
    const hit = hitTest(list, p(99, 99), HIT_TOLERANCE_PX, handles);
    expect(hit?.handle).toMatchObject({ kind: 'corner', index: 2, shapeId: 's1' });
    expect(hitTest(list, p(50, 2), HIT_TOLERANCE_PX, handles)?.handle).toMatchObject({ kind: 'edge', index: 0 });
  });

  it('answers null on an empty list', () => {
    expect(hitTest([], p(0, 0), 10)).toBeNull();
  });
});

describe('handlesOf', () => {
  it('a rotated box has 4 corners, 4 edges and a rotate handle a fixed screen distance beyond the top edge', () => {
    const shape: Shape = { id: 'r', labelId: 1, geometry: rbox(100, 100, 40, 20, 90) };
    const at2 = handlesOf(shape, 2);
    expect(at2.map((h) => h.kind)).toEqual(['corner', 'corner', 'corner', 'corner', 'edge', 'edge', 'edge', 'edge', 'rotate']);
    const rotate = at2[8]!.at;
    // At 90° the box's "up" points to +x on screen: top edge at x = 110, handle 24 screen px = 12 image px further.
    expect(rotate.x).toBeCloseTo(110 + ROTATE_HANDLE_OFFSET_PX / 2);
    expect(rotate.y).toBeCloseTo(100);
  });

  it('a polygon has vertex handles, and midpoint handles only on edges long enough on screen', () => {
    const shape: Shape = { id: 'p', labelId: 1, geometry: polygon([0, 0], [100, 0], [100, 10]) };
    const kinds = (scale: number) => handlesOf(shape, scale).filter((h) => h.kind === 'midpoint').map((h) => h.index);
    expect(kinds(1)).toEqual([0, 2]);
    expect(kinds(4)).toEqual([0, 1, 2]);
    expect(handlesOf(shape, 1).filter((h) => h.kind === 'vertex')).toHaveLength(3);
  });
});
