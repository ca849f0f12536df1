import type { RBoxGeometry } from '@loupe/contracts';
import { describe, expect, it } from 'vitest';
import { rboxCorners, selectionHandles } from '../src/index.js';
import { Driver, box, polygon, rbox, shapes } from './driver.js';

const withShapes = (...g: Parameters<typeof shapes>) => new Driver({ shapes: shapes(...g) });

describe('select tool: clicking', () => {
  it('selects the top shape, Shift toggles, empty space clears', () => {
    const d = withShapes(box(100, 100, 200, 200), box(150, 150, 250, 250));
    d.click(175, 175);
    expect(d.selected).toEqual(['s2']);
    d.click(110, 110, { shift: true });
    expect(d.selected.sort()).toEqual(['s1', 's2']);
    d.click(110, 110, { shift: true });
    expect(d.selected).toEqual(['s2']);
    d.click(600, 600);
    expect(d.selected).toEqual([]);
    expect(d.state.toolState).toBe('idle');
  });

  it('a click on one shape of a multi-selection narrows to it; a drag moves them all', () => {
    const d = withShapes(box(100, 100, 200, 200), box(300, 300, 400, 400));
    d.editor.selectAll();
    d.drag(150, 150, 160, 170);
    expect(d.geometry('s2')).toMatchObject({ x1: 310, y1: 320 });
    expect(d.selected).toHaveLength(2);
    d.click(160, 170);
    expect(d.selected).toEqual(['s1']);
  });

  it('hover follows the pointer over shapes and handles', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.pointerMove(150, 150);
    expect(d.state.hover).toEqual({ shapeId: 's1', handle: null });
    d.click(150, 150).pointerMove(200, 200);
    expect(d.state.hover.handle).toMatchObject({ kind: 'corner', index: 2 });
    d.pointerMove(600, 600);
    expect(d.state.hover).toEqual({ shapeId: null, handle: null });
  });
});

describe('select tool: translating', () => {
  it('moves by the drag, as one undo step, and stops at the image border as a block', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.drag(150, 150, 170, 140);
    expect(d.geometry('s1')).toMatchObject({ x1: 120, y1: 90, x2: 220, y2: 190 });
    expect(d.commits).toBe(1);
    d.drag(150, 150, -500, 150);
    expect(d.geometry('s1')).toMatchObject({ x1: 0, x2: 100 });
    d.editor.undo();
    expect(d.geometry('s1')).toMatchObject({ x1: 120, y1: 90 });
  });

  it('a press that does not travel the drag threshold is a click, not a move', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.pointerDown(150, 150).pointerMove(151, 151).pointerUp();
    expect(d.geometry('s1')).toMatchObject({ x1: 100 });
    expect(d.state.canUndo).toBe(false);
    expect(d.commits).toBe(0);
  });

  it('Escape mid-drag puts the shape back and records nothing', () => {
    const d = withShapes(box(100, 100, 200, 200));
    const original = d.geometry('s1');
    d.pointerDown(150, 150).pointerMove(250, 250);
    expect(d.state.toolState).toBe('translating');
    expect(d.geometry('s1')).toMatchObject({ x1: 200 });
    d.keyDown('Escape');
    expect(d.geometry('s1')).toBe(original);
    expect(d.state.toolState).toBe('idle');
    d.pointerUp();
    expect(d.state.canUndo).toBe(false);
    expect(d.commits).toBe(0);
  });

  it('Shift locks the move to the dominant axis', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.drag(150, 150, 190, 160, { shift: true });
    expect(d.geometry('s1')).toMatchObject({ x1: 140, y1: 100 });
  });
});

describe('select tool: resizing', () => {
  it('drags a box corner; the opposite corner stays', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.click(150, 150).drag(200, 200, 260, 230);
    expect(d.geometry('s1')).toMatchObject({ x1: 100, y1: 100, x2: 260, y2: 230 });
    expect(d.state.toolState).toBe('idle');
  });

  it('drags an edge past the opposite one and clamps to the image', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.click(150, 150).drag(100, 150, 1200, 150);
    expect(d.geometry('s1')).toMatchObject({ x1: 200, x2: 1000, y1: 100, y2: 200 });
  });

  it('resizes a rotated box in its own frame', () => {
    const d = withShapes(rbox(300, 300, 100, 40, 30));
    d.click(300, 300);
    const r0 = d.geometry('s1') as RBoxGeometry;
    const [tl, , br] = rboxCorners(r0);
    d.drag(br!.x, br!.y, br!.x + 20, br!.y + 10);
    const r1 = d.geometry('s1') as RBoxGeometry;
    expect(r1.angle).toBe(30);
    const tl1 = rboxCorners(r1)[0]!;
    expect(tl1.x).toBeCloseTo(tl!.x);
    expect(tl1.y).toBeCloseTo(tl!.y);
    expect(r1.w).toBeGreaterThan(100);
  });

  it('a resize below the minimum area is undone with a notice, not a deleted shape', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.editor.setMinArea(500);
    d.click(150, 150).drag(200, 200, 101, 101);
    expect(d.geometry('s1')).toMatchObject({ x2: 200, y2: 200 });
    expect(d.noticeNames).toEqual(['tooSmall']);
    expect(d.notices[0]!.values).toEqual({ minArea: 500 });
    expect(d.state.canUndo).toBe(false);
  });

  it('Escape mid-resize restores the original', () => {
    const d = withShapes(box(100, 100, 200, 200));
    d.click(150, 150).pointerDown(200, 200).pointerMove(300, 300);
    expect(d.state.toolState).toBe('resizing');
    d.keyDown('Escape').pointerUp();
    expect(d.geometry('s1')).toMatchObject({ x2: 200, y2: 200 });
  });
});

describe('select tool: rotating', () => {
  const rotateHandle = (d: Driver) => selectionHandles(d.state).find((h) => h.kind === 'rotate')!.at;

  it('turns a rotated box by the angle swept around its centre; Shift snaps to 15°', () => {
    const d = withShapes(rbox(300, 300, 100, 40, 0));
    d.click(300, 300);
    const h = rotateHandle(d);
    expect(h).toMatchObject({ x: 300, y: 300 - 20 - 24 });
    d.drag(h.x, h.y, 400, 300);
    expect((d.geometry('s1') as RBoxGeometry).angle).toBeCloseTo(90);
    const h2 = rotateHandle(d);
    d.drag(h2.x, h2.y, 300 + 100 * Math.cos(0.1), 300 + 100 * Math.sin(0.1) * 3, { shift: true });
    expect((d.geometry('s1') as RBoxGeometry).angle % 15).toBe(0);
    d.editor.undo();
    expect((d.geometry('s1') as RBoxGeometry).angle).toBeCloseTo(90);
  });

  it('rotating near the border shrinks the box to keep its corners in the image', () => {
    const d = withShapes(rbox(45, 400, 60, 80, 0));
    d.click(45, 400);
    const h = rotateHandle(d);
    d.drag(h.x, h.y, -5, 350);
    const r = d.geometry('s1') as RBoxGeometry;
    expect(r.angle).toBeCloseTo(-45);
    for (const c of rboxCorners(r)) expect(c.x).toBeGreaterThanOrEqual(-1e-9);
    expect(r.w).toBeLessThan(60);
    expect(r.w / r.h).toBeCloseTo(60 / 80);
  });

  it('Escape mid-rotation restores the angle', () => {
    const d = withShapes(rbox(300, 300, 100, 40, 10));
    d.click(300, 300);
    const h = rotateHandle(d);
    d.pointerDown(h.x, h.y).pointerMove(400, 300).keyDown('Escape').pointerUp();
    expect(d.geometry('s1')).toMatchObject({ angle: 10 });
  });
});

describe('select tool: polygon vertices', () => {
  const square = () => withShapes(polygon([100, 100], [300, 100], [300, 300], [100, 300]));

  it('drags a vertex', () => {
    const d = square();
    d.click(200, 200).drag(300, 300, 350, 320);
    expect(d.geometry('s1')).toMatchObject({ points: [[100, 100], [300, 100], [350, 320], [100, 300]] });
  });

  it('a click on an edge midpoint inserts a vertex; a drag from it places it; one undo removes it', () => {
    const d = square();
    d.click(200, 200).click(200, 100);
    expect(d.geometry('s1')).toMatchObject({ points: [[100, 100], [200, 100], [300, 100], [300, 300], [100, 300]] });
    d.drag(300, 200, 340, 200);
    expect((d.geometry('s1') as { points: unknown[] }).points).toHaveLength(6);
    expect((d.geometry('s1') as { points: number[][] }).points[3]).toEqual([340, 200]);
    d.editor.undo();
    expect((d.geometry('s1') as { points: unknown[] }).points).toHaveLength(5);
  });

  it('Escape during a midpoint drag removes the inserted vertex as well', () => {
    const d = square();
    d.click(200, 200).pointerDown(200, 100).pointerMove(200, 50).keyDown('Escape').pointerUp();
    expect((d.geometry('s1') as { points: unknown[] }).points).toHaveLength(4);
    expect(d.state.canUndo).toBe(false);
  });

  it('Alt+click deletes a vertex, down to 3 and no further', () => {
    const d = square();
    d.click(200, 200).click(100, 300, { alt: true });
    expect((d.geometry('s1') as { points: unknown[] }).points).toHaveLength(3);
    d.click(100, 100, { alt: true });
    expect((d.geometry('s1') as { points: unknown[] }).points).toHaveLength(3);
    expect(d.commits).toBe(1);
  });

  it('a vertex dragged until the area is below the minimum springs back', () => {
    const d = withShapes(polygon([100, 100], [110, 100], [100, 110]));
    d.editor.setMinArea(20);
    d.click(103, 103).drag(110, 100, 100, 100);
    expect(d.geometry('s1')).toMatchObject({ points: [[100, 100], [110, 100], [100, 110]] });
    expect(d.noticeNames).toContain('tooSmall');
  });
});

describe('select tool: marquee', () => {
  it('selects shapes entirely inside the rectangle; Shift adds to the selection', () => {
    const d = withShapes(box(100, 100, 150, 150), box(200, 200, 250, 250), box(120, 120, 600, 600));
    d.drag(50, 50, 300, 300);
    expect(d.selected.sort()).toEqual(['s1', 's2']);
    expect(d.state.draft).toBeNull();
    d.click(700, 700);
    d.click(400, 400);
    expect(d.selected).toEqual(['s3']);
    d.drag(60, 60, 160, 160, { shift: true });
    expect(d.selected.sort()).toEqual(['s1', 's3']);
  });

  it('shows the marquee while dragging and Escape restores the selection it started with', () => {
    const d = withShapes(box(100, 100, 150, 150));
    d.pointerDown(50, 50).pointerMove(200, 200);
    expect(d.state.draft).toMatchObject({ kind: 'marquee', from: { x: 50, y: 50 }, to: { x: 200, y: 200 } });
    expect(d.selected).toEqual(['s1']);
    d.keyDown('Escape').pointerUp();
    expect(d.selected).toEqual([]);
    expect(d.state.draft).toBeNull();
  });

  it('ignores hidden shapes', () => {
    const d = withShapes(box(100, 100, 150, 150));
    d.editor.toggleLabelHidden(1);
    d.drag(50, 50, 300, 300);
    expect(d.selected).toEqual([]);
    d.click(120, 120);
    expect(d.selected).toEqual([]);
  });
});
