import { describe, expect, it } from 'vitest';
import { LabelingLimits } from '@loupe/contracts';
import { Editor, TOOLS_BY_MODE, allActions, cursorFor, toAnnotations, toShapes } from '../src/index.js';
import { Driver, LABELS, box, polygon, rbox, shapes } from './driver.js';

describe('labels', () => {
  it('keys 1–9 pick labels[n-1] and relabel the selection in one undo step', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50), box(100, 100, 150, 150)) });
    d.editor.selectAll();
    d.keyDown('2');
    expect(d.state.activeLabelId).toBe(2);
    expect(d.shapes.map((s) => s.labelId)).toEqual([2, 2]);
    expect(d.commits).toBe(1);
    d.editor.undo();
    expect(d.shapes.map((s) => s.labelId)).toEqual([1, 1]);
    expect(d.state.activeLabelId).toBe(2);
  });

  it('with a drawing tool a key picks the label for the next shape and leaves the one just drawn alone', () => {
    const d = new Driver({ tool: 'box', activeLabelId: 1 });
    d.drag(10, 10, 60, 60);
    expect(d.state.selectedIds.size).toBe(1);
    d.keyDown('2');
    expect(d.state.activeLabelId).toBe(2);
    expect(d.shapes.map((s) => s.labelId)).toEqual([1]);
  });

  it('a key without a label, or the same label, changes nothing', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50)) });
    expect(d.handles('9')).toBe(false);
    d.editor.selectAll();
    d.keyDown('1');
    expect(d.state.canUndo).toBe(false);
    expect(d.commits).toBe(0);
  });

  it('reaches the ninth label, also by physical key on a layout that types other characters', () => {
    const labels = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `l${i}`, color: '#000000' }));
    const d = new Driver({ labels });
    d.keyDown('9');
    expect(d.state.activeLabelId).toBe(9);
    d.keyDown('&', { code: 'Digit1' });
    expect(d.state.activeLabelId).toBe(1);
    expect(d.handles('0')).toBe(true); // 0 is fit, not a label
    expect(d.state.activeLabelId).toBe(1);
    expect(allActions.filter((a) => /^label\d$/.test(a.name))).toHaveLength(LabelingLimits.labelShortcutCount);
  });

  it('setLabels drops an active label that no longer exists; unknown labels are refused', () => {
    const d = new Driver();
    d.editor.setActiveLabel(42);
    expect(d.state.activeLabelId).toBe(1);
    d.editor.setLabels(LABELS.slice(1));
    expect(d.state.activeLabelId).toBeNull();
    expect(d.editor.setLabelOfSelection(1)).toBe(false);
  });

  it('hiding a label hides its shapes from picking and drops them from the selection', () => {
    const d = new Driver({ shapes: [...shapes(box(10, 10, 50, 50)), { id: 'x', labelId: 2, geometry: box(100, 100, 200, 200) }] });
    d.editor.selectAll();
    d.editor.toggleLabelHidden(2);
    expect(d.selected).toEqual(['s1']);
    expect(d.editor.hitTest(d.editor.toScreen({ x: 150, y: 150 } as never))).toBeNull();
    d.editor.toggleLabelHidden(2);
    expect(d.state.hiddenLabelIds.size).toBe(0);
  });
});

describe('commands', () => {
  it('Delete and Backspace delete the selection; with nothing selected the key is not taken', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50), box(100, 100, 150, 150)) });
    expect(d.handles('Delete')).toBe(false);
    d.click(20, 20).keyDown('Delete');
    expect(d.shapes.map((s) => s.id)).toEqual(['s2']);
    d.click(120, 120).keyDown('Backspace');
    expect(d.shapes).toEqual([]);
    d.keyDown('z', { ctrl: true }).keyDown('z', { ctrl: true });
    expect(d.shapes).toHaveLength(2);
  });

  it('copy and paste offset by 10 px with new ids, cascade, and stay inside the image', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50), box(960, 760, 1000, 800)) });
    d.editor.selectAll();
    d.keyDown('c', { ctrl: true }).keyDown('v', { ctrl: true });
    expect(d.shapes).toHaveLength(4);
    const [, , a, b] = d.shapes;
    expect(a).toMatchObject({ id: 's3', geometry: { x1: 10, y1: 10, x2: 50, y2: 50 } });
    expect(b).toMatchObject({ id: 's4', geometry: { x1: 960, y1: 760, x2: 1000, y2: 800 } });
    expect(d.selected).toEqual(['s3', 's4']);
    d.editor.clearSelection();
    d.click(30, 30).keyDown('c', { ctrl: true }).keyDown('v', { ctrl: true }).keyDown('v', { ctrl: true });
    expect(d.geometry()).toMatchObject({ x1: 30, y1: 30, x2: 70, y2: 70 });
    d.keyDown('z', { ctrl: true });
    expect(d.shapes).toHaveLength(5);
  });

  it('paste onto a smaller image clamps, and says so when there is nothing to paste', () => {
    const d = new Driver({ shapes: shapes(rbox(500, 400, 300, 100, 30)) });
    expect(d.editor.paste()).toBe(false);
    expect(d.noticeNames).toEqual(['nothingToPaste']);
    d.editor.selectAll();
    d.editor.copy();
    d.editor.load('small', { width: 200, height: 150 }, []);
    d.keyDown('v', { ctrl: true });
    const r = d.geometry() as { cx: number; cy: number; w: number };
    expect(r.w).toBeLessThan(300);
    expect(r.cx).toBeLessThanOrEqual(200);
  });

  it('Ctrl+A selects visible shapes; Escape clears the selection when nothing is being drawn', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50), box(100, 100, 150, 150)) });
    d.keyDown('a', { ctrl: true });
    expect(d.selected).toHaveLength(2);
    expect(d.handles('Escape')).toBe(true);
    expect(d.selected).toEqual([]);
    expect(d.handles('Escape')).toBe(false);
  });

  it('Ctrl+H hides all shapes (none can be picked) and shows them again', () => {
    const d = new Driver({ shapes: shapes(box(10, 10, 50, 50)) });
    d.click(20, 20).keyDown('h', { ctrl: true });
    expect(d.state.shapesHidden).toBe(true);
    expect(d.selected).toEqual([]);
    d.click(20, 20);
    expect(d.selected).toEqual([]);
    d.keyDown('h', { ctrl: true });
    expect(d.state.shapesHidden).toBe(false);
    expect(d.state.tool).toBe('select'); // Ctrl+H is not the pan tool's H
  });

  it('setText sets, replaces and removes OCR text, capped at the contract limit', () => {
    const d = new Driver({ mode: 'ocr', shapes: shapes(box(10, 10, 50, 50)) });
    d.editor.setText('s1', 'A12');
    expect(d.geometry('s1')).toMatchObject({ text: 'A12' });
    expect(d.editor.setText('s1', 'A12')).toBe(false);
    d.editor.setText('s1', 'x'.repeat(5000));
    expect((d.geometry('s1') as { text: string }).text).toHaveLength(LabelingLimits.ocrTextMax);
    d.editor.setText('s1', '');
    expect(d.geometry('s1')).not.toHaveProperty('text');
    expect(d.commits).toBe(3);
  });

  it('setMinArea ignores negatives and nonsense', () => {
    const d = new Driver();
    d.editor.setMinArea(-5);
    expect(d.state.minArea).toBe(0);
    d.editor.setMinArea(Number.NaN);
    expect(d.state.minArea).toBe(0);
  });
});

describe('tools and modes', () => {
  it('tool keys select the tools the mode has and no others', () => {
    const d = new Driver({ mode: 'detection' });
    d.keyDown('b');
    expect(d.state.tool).toBe('box');
    d.keyDown('r').keyDown('h');
    expect(d.state.tool).toBe('pan');
    expect(d.handles('p')).toBe(false);
    expect(d.state.tool).toBe('pan');
    d.keyDown('v');
    expect(d.state.tool).toBe('select');
    expect(d.editor.setTool('polygon')).toBe(false);
    for (const mode of Object.keys(TOOLS_BY_MODE) as (keyof typeof TOOLS_BY_MODE)[]) {
      const e = new Editor({ image: { width: 10, height: 10 }, mode, labels: [] });
      for (const tool of TOOLS_BY_MODE[mode]) expect(e.setTool(tool)).toBe(true);
    }
  });

  it('letter shortcuts follow the physical key on non-Latin layouts', () => {
    const d = new Driver();
    d.keyDown('и', { code: 'KeyB' });
    expect(d.state.tool).toBe('box');
  });

  it('switching tools cancels an open drawing', () => {
    const d = new Driver({ mode: 'segmentation' }).tool('polygon').click(10, 10).click(50, 10);
    d.keyDown('v');
    expect(d.state.draft).toBeNull();
    expect(d.editor.hasUnfinishedDrawing()).toBe(false);
  });

  it('the cursor follows tool, hover and handle direction', () => {
    const d = new Driver({ shapes: shapes(box(100, 100, 200, 200), rbox(500, 400, 100, 50, 90)) });
    expect(cursorFor(d.state)).toBe('default');
    d.pointerMove(150, 150);
    expect(cursorFor(d.state)).toBe('move');
    d.click(150, 150).pointerMove(200, 200);
    expect(cursorFor(d.state)).toBe('nwse-resize');
    // Turned 90° clockwise, the box's own top edge faces +x and its right edge faces down.
    d.click(500, 400).pointerMove(525, 400);
    expect(cursorFor(d.state)).toBe('ew-resize');
    d.pointerMove(500, 450);
    expect(cursorFor(d.state)).toBe('ns-resize');
    d.tool('box');
    expect(cursorFor(d.state)).toBe('crosshair');
    d.keyDown(' ');
    expect(cursorFor(d.state)).toBe('grab');
  });
});

describe('navigation and unfinished drawings', () => {
  it('A / D and PageUp / PageDown ask the page for the previous / next image', () => {
    const d = new Driver();
    d.keyDown('a').keyDown('d').keyDown('PageUp').keyDown('PageDown');
    expect(d.navigations).toEqual([-1, 1, -1, 1]);
  });

  it('an open polygon blocks navigation with drawingNotFinished', () => {
    const d = new Driver({ mode: 'segmentation' }).tool('polygon').click(10, 10);
    d.keyDown('d');
    expect(d.navigations).toEqual([]);
    expect(d.noticeNames).toEqual(['drawingNotFinished']);
    expect(d.editor.cancelDrawing()).toBe(true);
    expect(d.editor.cancelDrawing()).toBe(false);
  });

  it('load cancels a drag in progress without committing it', () => {
    const d = new Driver({ shapes: shapes(box(100, 100, 200, 200)) });
    d.pointerDown(150, 150).pointerMove(300, 300);
    d.editor.load('other', { width: 100, height: 100 }, []);
    expect(d.state.toolState).toBe('idle');
    expect(d.commits).toBe(0);
    d.pointerUp();
    expect(d.shapes).toEqual([]);
  });
});

describe('state snapshots', () => {
  it('are new objects per change, batched per input, with shapesRevision rising only with shapes', () => {
    const d = new Driver();
    const seen: number[] = [];
    d.editor.subscribe((s) => seen.push(s.shapesRevision));
    const s0 = d.state;
    d.pointerMove(10, 10);
    d.editor.zoomBy(2);
    expect(d.state).not.toBe(s0);
    expect(d.state.shapesRevision).toBe(s0.shapesRevision);
    d.tool('box').drag(10, 10, 100, 100);
    expect(d.state.shapesRevision).toBe(s0.shapesRevision + 1);
    expect(seen.length).toBeLessThanOrEqual(8);
  });

  it('loaded shapes are clamped and given ids when theirs are missing or repeated; new ids never collide', () => {
    const d = new Driver({
      shapes: [
        { id: 's7', labelId: 1, geometry: box(-10, -10, 20, 20) },
        { id: 's7', labelId: 1, geometry: polygon([0, 0], [10, 0], [0, 10]) },
        { id: '', labelId: 1, geometry: box(30, 30, 40, 40) },
      ],
    });
    expect(d.shapes.map((s) => s.id)).toEqual(['s7', 's8', 's9']);
    expect(d.geometry('s7')).toMatchObject({ x1: 0, y1: 0 });
    d.tool('box').drag(100, 100, 200, 200);
    expect(d.geometry('s10')).toMatchObject({ x1: 100 });
  });

  it('converts to and from the contract annotations', () => {
    const s = toShapes([{ labelId: 3, geometry: box(1, 2, 3, 4) }]);
    expect(s).toEqual([{ id: 's1', labelId: 3, geometry: box(1, 2, 3, 4) }]);
    expect(toAnnotations(s)).toEqual([{ labelId: 3, geometry: box(1, 2, 3, 4) }]);
    expect(toShapes([])).toEqual([]);
  });
});
