import { describe, expect, it } from 'vitest';
import { FIT_MARGIN, MAX_SCALE, MIN_SCALE, fitViewport, resizeViewport, screenPoint, toImage, toScreen, zoomAround, type Viewport } from '../src/index.js';
import { Driver } from './driver.js';

const v: Viewport = { scale: 1.5, tx: 30, ty: -20, width: 800, height: 600 };

describe('viewport', () => {
  it('maps screen to image and back', () => {
    const at = screenPoint(123, 456);
    const back = toScreen(v, toImage(v, at));
    expect(back.x).toBeCloseTo(123);
    expect(back.y).toBeCloseTo(456);
  });

  it('zooming around a point keeps the image point under it fixed', () => {
    const at = screenPoint(310, 170);
    const before = toImage(v, at);
    for (const factor of [2, 0.5, 1.19, 7]) {
      const after = toImage(zoomAround(v, factor, at), at);
      expect(after.x).toBeCloseTo(before.x);
      expect(after.y).toBeCloseTo(before.y);
    }
  });

  it('clamps the zoom to its limits and ignores nonsense factors', () => {
    expect(zoomAround(v, 1e6, screenPoint(0, 0)).scale).toBe(MAX_SCALE);
    expect(zoomAround(v, 1e-6, screenPoint(0, 0)).scale).toBe(MIN_SCALE);
    const atMax = { ...v, scale: MAX_SCALE };
    expect(zoomAround(atMax, 2, screenPoint(5, 5))).toBe(atMax);
    expect(zoomAround(v, 0, screenPoint(0, 0))).toBe(v);
    expect(zoomAround(v, Number.NaN, screenPoint(0, 0))).toBe(v);
  });

  it('fit centres the whole image inside the margin', () => {
    const f = fitViewport(v, { width: 2000, height: 1000 });
    expect(f.scale).toBeCloseTo((800 - 2 * FIT_MARGIN) / 2000);
    expect(f.tx).toBeCloseTo(FIT_MARGIN);
    expect(f.ty + 1000 * f.scale / 2).toBeCloseTo(300);
  });

  it('fit leaves a zero-size canvas or image alone, and a tiny canvas gives up the margin', () => {
    const none = { ...v, width: 0, height: 0 };
    expect(fitViewport(none, { width: 10, height: 10 })).toBe(none);
    expect(fitViewport(v, { width: 0, height: 10 })).toBe(v);
    const tiny = fitViewport({ ...v, width: 40, height: 40 }, { width: 40, height: 40 });
    expect(tiny.scale).toBeCloseTo(0.5);
  });

  it('resizing keeps the centre where it was', () => {
    const r = resizeViewport(v, 1000, 500);
    const c1 = toImage(v, screenPoint(400, 300));
    const c2 = toImage(r, screenPoint(500, 250));
    expect(c2.x).toBeCloseTo(c1.x);
    expect(c2.y).toBeCloseTo(c1.y);
  });
});

describe('editor view', () => {
  it('the wheel zooms around the cursor', () => {
    const d = new Driver();
    const before = d.editor.toImage(screenPoint(300, 200));
    d.wheel(300, 200, -100).wheel(300, 200, -100).wheel(300, 200, -30, true);
    const after = d.editor.toImage(screenPoint(300, 200));
    expect(d.state.viewport.scale).toBeCloseTo(2 ** 0.5 * 2 ** 0.3);
    expect(after.x).toBeCloseTo(before.x);
    expect(after.y).toBeCloseTo(before.y);
  });

  it('F fits, + and - zoom around the centre, 0 fits too', () => {
    const d = new Driver();
    d.keyDown('+');
    expect(d.state.viewport.scale).toBeCloseTo(2 ** 0.25);
    d.keyDown('-').keyDown('-');
    expect(d.state.viewport.scale).toBeCloseTo(2 ** -0.25);
    d.keyDown('f');
    expect(d.state.viewport).toMatchObject({ scale: 1, tx: 16, ty: 16 });
    d.keyDown('+').keyDown('0');
    expect(d.state.viewport.scale).toBe(1);
  });

  it('fits on the first canvas size and on load, keeps the zoom on later resizes', () => {
    const d = new Driver();
    d.wheel(0, 0, -400);
    const zoomed = d.state.viewport.scale;
    d.editor.setViewportSize(600, 400);
    expect(d.state.viewport.scale).toBe(zoomed);
    d.editor.load('next', { width: 300, height: 200 }, []);
    expect(d.state.viewport.scale).toBeCloseTo((400 - 32) / 200);
  });
});
