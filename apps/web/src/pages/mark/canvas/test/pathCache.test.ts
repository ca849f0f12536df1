import { describe, expect, it } from 'vitest';
import { Editor, imagePoint, type Shape } from '@loupe/annotator';
import type { Geometry } from '@loupe/contracts';
import { FALLBACK_COLOR, ShapePathCache, TestPathCache, buildColorPaths, labelsKey, sameShapeList, staticShapes, testResultText } from '../pathCache';
import type { PathSink } from '../geometryPath';

/** Records path commands instead of drawing them (jsdom has no Path2D). */
class FakePath implements PathSink {
  readonly ops: string[] = [];
  moveTo(x: number, y: number) {
    this.ops.push(`M${x},${y}`);
  }
  lineTo(x: number, y: number) {
    this.ops.push(`L${x},${y}`);
  }
  closePath() {
    this.ops.push('Z');
  }
  rect(x: number, y: number, w: number, h: number) {
    this.ops.push(`R${x},${y},${w},${h}`);
  }
}

const labels = [
  { id: 1, name: 'scratch', color: '#ff0000' },
  { id: 2, name: 'dent', color: '#00ff00' },
];
const box = (x1: number, y1: number, x2: number, y2: number, text?: string): Geometry => ({ kind: 'box', x1, y1, x2, y2, ...(text ? { text } : {}) });
const shapes: Shape[] = [
  { id: 's1', labelId: 1, geometry: box(0, 0, 10, 10) },
  { id: 's2', labelId: 2, geometry: { kind: 'polygon', points: [[0, 0], [5, 0], [0, 5]] } },
  { id: 's3', labelId: 1, geometry: box(20, 20, 30, 30, 'A12') },
];
const editorWith = () => new Editor({ image: { width: 100, height: 100 }, mode: 'detection', labels, shapes });

describe('path cache keying', () => {
  it('groups shapes into one path per label colour and collects OCR texts at the top-left', () => {
    const paths = buildColorPaths(shapes, new Map([[1, '#ff0000']]), () => new FakePath());
    expect([...paths.byColor.keys()]).toEqual(['#ff0000', FALLBACK_COLOR]);
    expect(paths.byColor.get('#ff0000')!.ops).toEqual(['R0,0,10,10', 'R20,20,10,10']);
    expect(paths.byColor.get(FALLBACK_COLOR)!.ops).toEqual(['M0,0', 'L5,0', 'L0,5', 'Z']);
    expect(paths.texts).toEqual([{ text: 'A12', x: 20, y: 20, color: '#ff0000' }]);
  });

  it('keeps selected shapes, leaves out hidden ones, and draws nothing while all are hidden', () => {
    const editor = editorWith();
    expect(staticShapes(editor.state).map((s) => s.id)).toEqual(['s1', 's2', 's3']);
    editor.select(['s1']);
    editor.toggleLabelHidden(2);
    expect(staticShapes(editor.state).map((s) => s.id)).toEqual(['s1', 's3']);
    editor.toggleShapesHidden();
    expect(staticShapes(editor.state)).toEqual([]);
  });

  it('compares shape lists by identity and labels by id and colour', () => {
    expect(sameShapeList(shapes, shapes.slice())).toBe(true);
    expect(sameShapeList(shapes, [...shapes.slice(0, 2), { ...shapes[2]! }])).toBe(false);
    expect(sameShapeList([], [])).toBe(true);
    expect(labelsKey(labels)).toBe('1:#ff0000,2:#00ff00');
    expect(labelsKey([])).toBe('');
  });
});

describe('ShapePathCache', () => {
  it('rebuilds only when the drawn shapes or the label colours change', () => {
    const editor = editorWith();
    let built = 0;
    const cache = new ShapePathCache(() => {
      built++;
      return new FakePath();
    });
    const first = cache.get(editor.state);
    editor.zoomBy(2);
    editor.pointerMove({ point: editor.toScreen(imagePoint(5, 5)), button: -1 });
    expect(cache.get(editor.state)).toBe(first);
    editor.setLabels([{ ...labels[0]!, color: '#123456' }, labels[1]!]);
    const recoloured = cache.get(editor.state);
    expect(recoloured).not.toBe(first);
    expect(recoloured.byColor.has('#123456')).toBe(true);
    editor.select(['s2']);
    expect(cache.get(editor.state)).toBe(recoloured);
    editor.deleteSelected();
    expect(cache.get(editor.state)).not.toBe(recoloured);
    expect(built).toBeGreaterThan(0);
  });

  it('rebuilds once when a drag starts and once when it ends, not on every move', () => {
    const big: Shape = { id: 'big', labelId: 1, geometry: box(10, 10, 50, 50) };
    const editor = new Editor({ image: { width: 100, height: 100 }, mode: 'detection', labels, shapes: [...shapes, big] });
    editor.setViewportSize(100, 100);
    const cache = new ShapePathCache(() => new FakePath());
    const at = (x: number, y: number) => editor.toScreen(imagePoint(x, y));
    editor.pointerDown({ point: at(30, 30), button: 0 });
    editor.pointerUp({ point: at(30, 30), button: 0 });
    expect([...editor.state.selectedIds]).toEqual(['big']);
    const resting = cache.get(editor.state);
    editor.pointerDown({ point: at(30, 30), button: 0 });
    editor.pointerMove({ point: at(40, 40), button: 0 });
    expect(editor.state.toolState).toBe('translating');
    const dragging = cache.get(editor.state);
    expect(dragging).not.toBe(resting);
    editor.pointerMove({ point: at(60, 60), button: 0 });
    expect(cache.get(editor.state)).toBe(dragging);
    editor.pointerUp({ point: at(60, 60), button: 0 });
    expect(cache.get(editor.state)).not.toBe(dragging);
  });
});

describe('test results', () => {
  it('are keyed by the array the page passes and show confidence with two decimals, OCR text first', () => {
    const cache = new TestPathCache(() => new FakePath());
    expect(cache.get(null, labels)).toBeNull();
    expect(cache.get([], labels)).toBeNull();
    const results = [{ id: 1, labelId: 2, geometry: box(1, 2, 3, 4), confidence: 0.876 }];
    const a = cache.get(results, labels);
    expect(cache.get(results, labels)).toBe(a);
    expect(cache.get([...results], labels)).not.toBe(a);
    expect(a!.texts).toEqual([{ text: '0.88', x: 1, y: 2, color: '#00ff00' }]);
    expect(testResultText({ geometry: box(0, 0, 1, 1, 'LOT7'), confidence: 1 })).toBe('LOT7 1.00');
  });
});
