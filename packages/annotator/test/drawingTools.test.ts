import type { RBoxGeometry } from '@loupe/contracts';
import { describe, expect, it } from 'vitest';
import { Driver } from './driver.js';

describe('box tool', () => {
  it('draws corner to corner in any direction, selects the new shape, one undo step', () => {
    const d = new Driver().tool('box');
    d.pointerDown(300, 200).pointerMove(250, 150);
    expect(d.state.toolState).toBe('drawing');
    expect(d.state.draft).toMatchObject({ kind: 'box', geometry: { x1: 250, y1: 150, x2: 300, y2: 200 } });
    d.pointerMove(100, 120).pointerUp();
    expect(d.shapes).toEqual([{ id: 's1', labelId: 1, geometry: { kind: 'box', x1: 100, y1: 120, x2: 300, y2: 200 } }]);
    expect(d.selected).toEqual(['s1']);
    expect(d.state.draft).toBeNull();
    expect(d.commits).toBe(1);
    d.editor.undo();
    expect(d.shapes).toEqual([]);
  });

  it('clamps to the image when the drag leaves it', () => {
    const d = new Driver().tool('box').drag(900, 700, 1500, -40);
    expect(d.geometry()).toMatchObject({ x1: 900, y1: 0, x2: 1000, y2: 700 });
  });

  it('needs an active label: nothing starts and the page is told', () => {
    const d = new Driver({ activeLabelId: null }).tool('box').drag(10, 10, 100, 100);
    expect(d.shapes).toEqual([]);
    expect(d.state.draft).toBeNull();
    expect(d.state.toolState).toBe('idle');
    expect(d.noticeNames).toEqual(['selectLabelFirst']);
  });

  it('drops a box below the minimum area, and a click (zero area) even with no minimum', () => {
    const d = new Driver({ minArea: 100 }).tool('box').drag(10, 10, 19, 19);
    expect(d.shapes).toEqual([]);
    expect(d.notices).toEqual([{ notice: 'tooSmall', values: { minArea: 100 } }]);
    d.drag(10, 10, 20, 20);
    expect(d.shapes).toHaveLength(1); // exactly the limit is accepted
    d.editor.setMinArea(0);
    d.click(500, 500);
    expect(d.shapes).toHaveLength(1);
  });

  it('Escape cancels the drag', () => {
    const d = new Driver().tool('box');
    d.pointerDown(10, 10).pointerMove(100, 100).keyDown('Escape').pointerUp();
    expect(d.shapes).toEqual([]);
    expect(d.state.draft).toBeNull();
  });
});

describe('rotated box tool', () => {
  it('drag the first edge, release, move for the height, click to finish', () => {
    const d = new Driver().tool('rbox');
    d.pointerDown(100, 100).pointerMove(150, 150).pointerMove(200, 200).pointerUp();
    expect(d.state.toolState).toBe('height');
    expect(d.editor.hasUnfinishedDrawing()).toBe(true);
    d.pointerMove(100, 200);
    const draft = d.state.draft as { geometry: RBoxGeometry };
    expect(draft.geometry.angle).toBeCloseTo(45);
    d.pointerDown(100, 200).pointerUp();
    const r = d.geometry() as RBoxGeometry;
    expect(r.angle).toBeCloseTo(45);
    expect(r.w).toBeCloseTo(Math.hypot(100, 100));
    expect(r.h).toBeCloseTo(Math.hypot(50, 50));
    expect(d.editor.hasUnfinishedDrawing()).toBe(false);
    expect(d.selected).toEqual(['s1']);
  });

  it('also works click, click, click', () => {
    const d = new Driver().tool('rbox');
    d.click(100, 100);
    expect(d.state.toolState).toBe('firstEdge');
    expect(d.editor.hasUnfinishedDrawing()).toBe(true);
    d.pointerMove(300, 100).click(300, 100);
    expect(d.state.toolState).toBe('height');
    d.pointerMove(200, 60).click(200, 60);
    expect(d.geometry()).toMatchObject({ kind: 'rbox', cx: 200, cy: 80, w: 200, h: 40, angle: 0 });
  });

  it('a box with an edge angle turned past 90° keeps a positive size', () => {
    const d = new Driver().tool('rbox');
    d.drag(300, 300, 200, 300).click(250, 280);
    expect(d.geometry()).toMatchObject({ cx: 250, cy: 290, w: 100, h: 20, angle: 180 });
  });

  it('Backspace takes back the first edge; Escape cancels', () => {
    const d = new Driver().tool('rbox');
    d.drag(100, 100, 200, 100).keyDown('Backspace');
    expect(d.state.toolState).toBe('firstEdge');
    d.keyDown('Escape');
    expect(d.state.toolState).toBe('idle');
    expect(d.state.draft).toBeNull();
    expect(d.editor.hasUnfinishedDrawing()).toBe(false);
    expect(d.shapes).toEqual([]);
  });

  it('is clamped to the image and refused below the minimum area', () => {
    const d = new Driver({ minArea: 50 }).tool('rbox');
    d.drag(10, 10, 20, 10).click(15, 13);
    expect(d.shapes).toEqual([]);
    expect(d.noticeNames).toEqual(['tooSmall']);
    d.drag(900, 780, 1000, 780).click(950, 900);
    expect(d.geometry()).toMatchObject({ cy: 790, h: 20 });
  });
});

describe('polygon tool', () => {
  const seg = () => new Driver({ mode: 'segmentation' }).tool('polygon');

  it('closes by clicking the first vertex', () => {
    const d = seg().click(100, 100).click(200, 100).click(200, 200);
    expect(d.state.draft).toMatchObject({ kind: 'polygon', closable: false });
    d.pointerMove(102, 101);
    expect(d.state.draft).toMatchObject({ closable: true, cursor: { x: 102, y: 101 } });
    d.click(102, 101);
    expect(d.geometry()).toEqual({ kind: 'polygon', points: [[100, 100], [200, 100], [200, 200]] });
    expect(d.state.toolState).toBe('idle');
    expect(d.commits).toBe(1);
  });

  it('closes with a double-click, whose second press adds no duplicate vertex', () => {
    const d = seg().click(100, 100).click(200, 100).click(200, 200).doubleClick(100, 200);
    expect(d.geometry()).toEqual({ kind: 'polygon', points: [[100, 100], [200, 100], [200, 200], [100, 200]] });
  });

  it('closes with Enter, but not before there are 3 points', () => {
    const d = seg().click(100, 100).click(200, 100);
    expect(d.handles('Enter')).toBe(false);
    expect(d.editor.hasUnfinishedDrawing()).toBe(true);
    d.click(150, 200).keyDown('Enter');
    expect(d.shapes).toHaveLength(1);
    expect(d.editor.hasUnfinishedDrawing()).toBe(false);
  });

  it('Backspace removes the last point, and the drawing itself after the first; selection survives', () => {
    const d = seg().click(100, 100).click(200, 100).click(150, 200).keyDown('Enter');
    expect(d.selected).toEqual(['s1']);
    d.click(500, 500).click(600, 500).keyDown('Backspace');
    expect(d.state.draft).toMatchObject({ points: [{ x: 500, y: 500 }] });
    d.keyDown('Backspace');
    expect(d.state.draft).toBeNull();
    expect(d.state.toolState).toBe('idle');
    expect(d.shapes).toHaveLength(1);
    expect(d.selected).toEqual(['s1']);
  });

  it('Ctrl+Z while drawing takes back a point instead of undoing the last shape', () => {
    const d = seg().click(100, 100).click(200, 100).click(150, 200).keyDown('Enter');
    d.click(500, 500).click(600, 500).keyDown('z', { ctrl: true });
    expect(d.shapes).toHaveLength(1);
    expect(d.state.draft).toMatchObject({ points: [{ x: 500, y: 500 }] });
  });

  it('Escape cancels the open polygon', () => {
    const d = seg().click(100, 100).click(200, 100).keyDown('Escape');
    expect(d.state.draft).toBeNull();
    expect(d.shapes).toEqual([]);
  });

  it('clamps points to the image and drops a polygon below the minimum area', () => {
    const d = seg().click(-50, -50).click(100, -20).click(100, 100).keyDown('Enter');
    expect(d.geometry()).toEqual({ kind: 'polygon', points: [[0, 0], [100, 0], [100, 100]] });
    d.click(300, 300).click(320, 300).click(300, 300.3).keyDown('Enter');
    expect(d.shapes).toHaveLength(1);
    expect(d.noticeNames).toEqual(['tooSmall']);
  });

  it('closes at the tolerance of 6 screen px whatever the zoom', () => {
    const d = seg();
    d.editor.zoomBy(4, d.editor.toScreen({ x: 0, y: 0 } as never));
    const s = (x: number, y: number) => d.editor.toScreen({ x, y } as never);
    const a = s(10, 10);
    const b = s(60, 10);
    const c = s(60, 60);
    d.click(a.x, a.y).click(b.x, b.y).click(c.x, c.y).click(a.x + 6, a.y);
    expect(d.shapes).toHaveLength(1);
    expect((d.geometry() as { points: unknown[] }).points).toHaveLength(3);
  });

  it('needs an active label', () => {
    const d = new Driver({ mode: 'segmentation', activeLabelId: null }).tool('polygon').click(10, 10);
    expect(d.state.draft).toBeNull();
    expect(d.noticeNames).toEqual(['selectLabelFirst']);
  });
});

describe('pan', () => {
  it('the pan tool drags the view', () => {
    const d = new Driver().tool('pan');
    d.pointerDown(100, 100).pointerMove(130, 90);
    expect(d.state.toolState).toBe('dragging');
    d.pointerUp();
    expect(d.state.viewport).toMatchObject({ tx: 30, ty: -10 });
    expect(d.state.toolState).toBe('idle');
  });

  it('Space-drag and middle-drag pan from any tool without touching the drawing', () => {
    const d = new Driver({ mode: 'segmentation' }).tool('polygon').click(100, 100).click(200, 100);
    d.keyDown(' ');
    expect(d.state.panning).toBe(true);
    d.drag(300, 300, 350, 300).keyUp(' ');
    expect(d.state.panning).toBe(false);
    d.pointerDown(300, 300, { button: 1 }).pointerMove(300, 320, { button: 1 });
    expect(d.state.panning).toBe(true);
    d.pointerUp(300, 320, { button: 1 });
    expect(d.state.viewport).toMatchObject({ tx: 50, ty: 20 });
    expect(d.state.draft).toMatchObject({ points: [{ x: 100, y: 100 }, { x: 200, y: 100 }] });
    expect(d.state.toolState).toBe('drawing');
  });

  it('the right button does nothing', () => {
    const d = new Driver().tool('box').drag(10, 10, 100, 100, { button: 2 });
    expect(d.shapes).toEqual([]);
  });
});

describe('space release', () => {
  it('changes nothing when no pan was on (a space typed into a field)', () => {
    const d = new Driver();
    const before = d.state;
    d.keyUp(' ');
    expect(d.state).toBe(before);
  });
});
