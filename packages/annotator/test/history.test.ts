import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT, History, HistoryStore, type Shape } from '../src/index.js';
import { Driver, box, shapes } from './driver.js';

const snap = (n: number): Shape[] => shapes(...Array.from({ length: n }, (_, i) => box(i, i, i + 10, i + 10)));

describe('History', () => {
  it('undoes and redoes snapshots; a new change clears redo', () => {
    const h = new History();
    const [a, b, c] = [snap(0), snap(1), snap(2)];
    h.push(a);
    expect(h.undo(b)).toBe(a);
    expect(h.redo(a)).toBe(b);
    h.undo(b);
    h.push(a);
    expect(h.canRedo).toBe(false);
    expect(h.redo(c)).toBeNull();
  });

  it('keeps at most the limit, dropping the oldest', () => {
    const h = new History(3);
    const all = [snap(0), snap(1), snap(2), snap(3)];
    all.forEach((s) => h.push(s));
    expect(h.undo(snap(4))).toBe(all[3]);
    h.undo(all[3]!);
    expect(h.undo(all[2]!)).toBe(all[1]);
    expect(h.undo(all[1]!)).toBeNull();
  });

  it('undo on an empty history is nothing', () => {
    expect(new History().undo([])).toBeNull();
  });

  it('the store keeps one history per image key and can reset one', () => {
    const store = new HistoryStore();
    const a = store.get('a');
    a.push([]);
    expect(store.get('b').canUndo).toBe(false);
    expect(store.get('a')).toBe(a);
    expect(store.reset('a').canUndo).toBe(false);
  });

  it('the store forgets the least recently used image beyond its size', () => {
    const store = new HistoryStore(2);
    store.get('a').push([]);
    store.get('b');
    store.get('a');
    store.get('c');
    expect(store.get('a').canUndo).toBe(true);
    expect(store.get('b').canUndo).toBe(false);
  });
});

describe('editor undo/redo', () => {
  it('undoes and redoes drawing with Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y, and each is a commit', () => {
    const d = new Driver().tool('box').drag(10, 10, 100, 100).drag(200, 200, 300, 300);
    expect(d.state.canUndo).toBe(true);
    d.keyDown('z', { ctrl: true });
    expect(d.shapes).toHaveLength(1);
    expect(d.state.canRedo).toBe(true);
    d.keyDown('z', { ctrl: true });
    expect(d.shapes).toHaveLength(0);
    expect(d.state.canUndo).toBe(false);
    expect(d.handles('z', { ctrl: true })).toBe(false);
    d.keyDown('z', { ctrl: true, shift: true }).keyDown('y', { meta: true });
    expect(d.shapes).toHaveLength(2);
    expect(d.commits).toBe(6);
  });

  it('a selection change keeps redo', () => {
    const d = new Driver().tool('box').drag(10, 10, 100, 100).drag(200, 200, 300, 300);
    d.editor.undo();
    d.tool('select').click(50, 50).click(900, 700);
    d.editor.selectAll();
    expect(d.state.canRedo).toBe(true);
    d.editor.redo();
    expect(d.shapes).toHaveLength(2);
  });

  it('undo drops vanished shapes from the selection', () => {
    const d = new Driver().tool('box').drag(10, 10, 100, 100);
    expect(d.selected).toEqual(['s1']);
    d.editor.undo();
    expect(d.selected).toEqual([]);
  });

  it('keeps history per image for the session', () => {
    const d = new Driver({ imageKey: 'img-1' }).tool('box').drag(10, 10, 100, 100);
    const first = d.shapes;
    d.editor.load('img-2', { width: 500, height: 500 }, []);
    d.resetView();
    expect(d.state.canUndo).toBe(false);
    d.drag(10, 10, 50, 50).drag(60, 60, 90, 90);
    d.editor.undo();
    d.editor.load('img-1', { width: 1000, height: 800 }, first);
    expect(d.state.canUndo).toBe(true);
    expect(d.state.canRedo).toBe(false);
    d.editor.undo();
    expect(d.shapes).toEqual([]);
    d.editor.load('img-2', { width: 500, height: 500 }, shapes(box(10, 10, 50, 50)));
    expect(d.state.canRedo).toBe(true);
    d.editor.redo();
    expect(d.shapes).toHaveLength(2);
  });

  it('replaceShapes (a server reload) resets only that image history', () => {
    const d = new Driver({ imageKey: 'a' }).tool('box').drag(10, 10, 100, 100);
    d.editor.load('b', { width: 100, height: 100 }, []);
    d.resetView().drag(10, 10, 50, 50);
    d.editor.replaceShapes(shapes(box(1, 1, 9, 9)));
    expect(d.state.canUndo).toBe(false);
    expect(d.commits).toBe(2);
    d.editor.load('a', { width: 1000, height: 800 }, []);
    expect(d.state.canUndo).toBe(true);
  });

  it('stops at the limit: 201 drawings undo 200 times', () => {
    const d = new Driver().tool('box');
    for (let i = 0; i <= HISTORY_LIMIT; i++) d.drag(i, 0, i + 10, 10);
    let undone = 0;
    while (d.editor.undo()) undone++;
    expect(undone).toBe(HISTORY_LIMIT);
    expect(d.shapes).toHaveLength(1);
  });

  it('undo during a drag abandons the drag first', () => {
    const d = new Driver({ shapes: shapes(box(100, 100, 200, 200)) }).tool('box').drag(500, 500, 600, 600);
    d.tool('select').pointerDown(150, 150).pointerMove(400, 400).keyDown('z', { ctrl: true });
    expect(d.shapes).toEqual(shapes(box(100, 100, 200, 200)));
    expect(d.state.toolState).toBe('idle');
  });
});
