import { describe, expect, it } from 'vitest';
import type { TestImageData } from '@loupe/contracts';
import { asGeometry, fitContain, outline, overlayShapes, tagRect, toBox, UNKNOWN_LABEL_COLOR } from '../results/overlayGeometry';

const labels = new Map([
  [1, { name: 'dent', color: '#ff0000' }],
  [2, { name: 'scratch', color: '#00ff00' }],
]);

/** Numbers of a path's points, for comparing with a tolerance. */
const points = (d: string) => [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);

describe('fitContain', () => {
  it('fits a wide image to the width and centres it vertically', () => {
    const fit = fitContain(1000, 500, 240, 180);
    expect(fit.scale).toBeCloseTo(0.24);
    expect(fit.dx).toBe(0);
    expect(fit.dy).toBeCloseTo(30);
  });

  it('fits a tall image to the height and centres it horizontally', () => {
    const fit = fitContain(300, 900, 240, 180);
    expect(fit.scale).toBeCloseTo(0.2);
    expect(fit.dx).toBeCloseTo(90);
    expect(fit.dy).toBe(0);
  });

  it('maps image corners onto the drawn image, not the frame', () => {
    const fit = fitContain(1000, 500, 240, 180);
    expect(toBox({ x: 0, y: 0 }, fit)).toEqual({ x: 0, y: 30 });
    expect(toBox({ x: 1000, y: 500 }, fit)).toEqual({ x: 240, y: 150 });
  });

  it('survives an image without a size', () => {
    expect(fitContain(0, 0, 240, 180)).toEqual({ scale: 1, dx: 0, dy: 0, boxW: 240, boxH: 180 });
  });
});

describe('outline', () => {
  const fit = fitContain(400, 300, 240, 180); // scale 0.6, no offsets

  it('draws a box as a closed four-point path with its bounds', () => {
    const { d, bounds } = outline({ kind: 'box', x1: 100, y1: 50, x2: 200, y2: 150 }, fit);
    expect(d).toBe('M60 30 L120 30 L120 90 L60 90 Z');
    expect(bounds).toEqual({ x: 60, y: 30, w: 60, h: 60 });
  });

  it('draws a rotated box through its rotated corners (90° swaps width and height)', () => {
    const { d, bounds } = outline({ kind: 'rbox', cx: 200, cy: 150, w: 100, h: 20, angle: 90 }, fit);
    expect(d.endsWith('Z')).toBe(true);
    expect(points(d)).toHaveLength(4);
    expect(bounds.w).toBeCloseTo(12);
    expect(bounds.h).toBeCloseTo(60);
    expect(bounds.x + bounds.w / 2).toBeCloseTo(120);
    expect(bounds.y + bounds.h / 2).toBeCloseTo(90);
  });

  it('draws a polygon point by point', () => {
    const { d } = outline({ kind: 'polygon', points: [[0, 0], [400, 0], [200, 300]] }, fit);
    expect(d).toBe('M0 0 L240 0 L120 180 Z');
  });
});

describe('asGeometry', () => {
  it('accepts the three annotation shapes and nothing else', () => {
    expect(asGeometry({ kind: 'box', x1: 1, y1: 2, x2: 3, y2: 4 })).not.toBeNull();
    expect(asGeometry({ kind: 'rbox', cx: 1, cy: 2, w: 3, h: 4, angle: 0 })).not.toBeNull();
    expect(asGeometry({ kind: 'polygon', points: [[0, 0], [1, 0], [0, 1]] })).not.toBeNull();
    expect(asGeometry({ kind: 'box', x1: 1, y1: 2, x2: 3 })).toBeNull();
    expect(asGeometry({ kind: 'polygon', points: [[0, 0]] })).toBeNull();
    expect(asGeometry(null)).toBeNull();
    expect(asGeometry('box')).toBeNull();
  });
});

describe('tagRect', () => {
  const fit = fitContain(400, 300, 240, 180);

  it('sits above the shape when there is room', () => {
    const r = tagRect({ x: 50, y: 100, w: 40, h: 40 }, 'dent 0.90', 10, fit);
    expect(r.y).toBeCloseTo(100 - 14);
    expect(r.x).toBe(50);
  });

  it('goes inside the shape at the top edge of the frame', () => {
    const r = tagRect({ x: 50, y: 5, w: 40, h: 40 }, 'dent 0.90', 10, fit);
    expect(r.y).toBe(5);
  });

  it('stays inside the frame at its right edge', () => {
    const r = tagRect({ x: 230, y: 100, w: 10, h: 10 }, 'scratch 0.99', 10, fit);
    expect(r.x + r.w).toBeLessThanOrEqual(240);
    expect(r.x).toBeGreaterThanOrEqual(0);
  });

  it('puts ground-truth tags below the shape, inside it at the bottom of the frame', () => {
    expect(tagRect({ x: 50, y: 100, w: 40, h: 40 }, 'dent', 10, fit, 'below').y).toBe(140);
    expect(tagRect({ x: 50, y: 100, w: 40, h: 75 }, 'dent', 10, fit, 'below').y).toBeCloseTo(175 - 14);
    expect(tagRect({ x: 50, y: 150, w: 40, h: 60 }, 'dent', 10, fit, 'below').y).toBeCloseTo(180 - 14);
  });

  it('stays inside the frame at its top edge when a shape starts off the top', () => {
    const r = tagRect({ x: 0, y: -20, w: 10, h: 10 }, 'x', 10, fit);
    expect(r.y).toBe(0);
  });
});

describe('overlayShapes', () => {
  const box = (x: number) => ({ kind: 'box', x1: x, y1: 10, x2: x + 20, y2: 30 });
  const image: Pick<TestImageData, 'predictions' | 'groundTruth' | 'fp'> = {
    predictions: [
      { labelId: 1, geometry: box(0), confidence: 0.91, matched: true },
      { labelId: 2, geometry: box(100), confidence: 0.4, matched: false },
      { labelId: 9, geometry: box(200), confidence: 0.3, matched: false },
      { labelId: 1, geometry: { kind: 'circle' }, confidence: 0.8, matched: false },
    ],
    groundTruth: [
      { labelId: 1, geometry: box(0), matched: true },
      { labelId: 2, geometry: box(300), matched: false },
    ],
    fp: 2,
  };
  const fit = fitContain(400, 300, 400, 300);

  it('draws ground truth first and solid, predictions dashed; misses and false alarms are marked', () => {
    const shapes = overlayShapes(image, labels, fit, { fontSize: 10 });
    expect(shapes.map((s) => [s.role, s.dashed])).toEqual([
      ['gt', false],
      ['fn', false],
      ['tp', true],
      ['fp', true],
      ['fp', true],
    ]);
    expect(shapes.map((s) => s.tag?.text ?? null)).toEqual([null, 'FN scratch', 'dent 0.91', 'FP scratch 0.40', 'FP #9 0.30']);
  });

  it('colours by label and greys a label deleted since the training', () => {
    const shapes = overlayShapes(image, labels, fit, { fontSize: 10 });
    expect(shapes.find((s) => s.role === 'tp')!.color).toBe('#ff0000');
    expect(shapes.at(-1)!.color).toBe(UNKNOWN_LABEL_COLOR);
  });

  it('tags ground truth on request, below the shape, and nothing without a font size', () => {
    const [gt] = overlayShapes(image, labels, fit, { fontSize: 10, tagGroundTruth: true });
    expect(gt!.tag).toEqual({ text: 'dent', rect: expect.objectContaining({ y: 30 }) });
    expect(overlayShapes(image, labels, fit, { fontSize: 0 }).every((s) => !s.tag)).toBe(true);
  });

  it('does not call predictions false positives on an image with nothing to judge them by', () => {
    const shapes = overlayShapes({ predictions: [image.predictions[1]!], groundTruth: [], fp: 0 }, labels, fit, { fontSize: 10 });
    expect(shapes.map((s) => [s.role, s.dashed, s.tag?.text])).toEqual([['pred', true, 'scratch 0.40']]);
  });
});
