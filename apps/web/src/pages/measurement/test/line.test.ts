import { describe, expect, it } from 'vitest';
import { lineLength, scaleOfLine, toImagePoint } from '../line';

describe('a calibration line', () => {
  // A 400×300 image drawn at half size, 100 px from the left and 50 from the top of the page.
  const rect = { left: 100, top: 50, width: 200, height: 150 };
  const size = { width: 400, height: 300 };

  it('turns clicks into image pixels, whatever size the image is drawn at', () => {
    expect(toImagePoint({ clientX: 100, clientY: 50 }, rect, size)).toEqual({ x: 0, y: 0 });
    expect(toImagePoint({ clientX: 200, clientY: 125 }, rect, size)).toEqual({ x: 200, y: 150 });
    expect(toImagePoint({ clientX: 133.337, clientY: 50 }, rect, size)).toEqual({ x: 66.67, y: 0 });
  });

  it('keeps a click past the edge on the edge (the server refuses lines leaving the image)', () => {
    expect(toImagePoint({ clientX: 90, clientY: 260 }, rect, size)).toEqual({ x: 0, y: 300 });
    expect(toImagePoint({ clientX: 999, clientY: 0 }, rect, size)).toEqual({ x: 400, y: 0 });
  });

  it('gives mm per pixel from the line’s real length, and nothing without a line or a positive length', () => {
    const a = { x: 10, y: 10 };
    const b = { x: 100, y: 130 };
    expect(lineLength(a, b)).toBe(150);
    expect(scaleOfLine(a, b, 30)).toBeCloseTo(0.2, 12);
    expect(scaleOfLine(a, a, 30)).toBeNull();
    expect(scaleOfLine(a, null, 30)).toBeNull();
    expect(scaleOfLine(a, b, 0)).toBeNull();
    expect(scaleOfLine(a, b, -5)).toBeNull();
    expect(scaleOfLine(a, b, null)).toBeNull();
    expect(scaleOfLine(a, b, Number.POSITIVE_INFINITY)).toBeNull();
  });
});
