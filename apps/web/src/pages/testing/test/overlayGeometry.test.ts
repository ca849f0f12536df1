import { describe, expect, it } from 'vitest';
import type { TestImageData } from '@loupe/contracts';
import { asGeometry, boundsIou, fitContain, outline, overlayShapes, overlayStyleOf, tagRect, textVerdicts, toBox, UNKNOWN_LABEL_COLOR } from '../results/overlayGeometry';

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

describe('overlayShapes: segmentation masks', () => {
  const square = (x: number, y: number, s: number) => ({ kind: 'polygon', points: [[x, y], [x + s, y], [x + s, y + s], [x, y + s]] });
  const fit = fitContain(64, 64, 240, 180);
  const image: Pick<TestImageData, 'predictions' | 'groundTruth' | 'fp'> = {
    predictions: [
      { labelId: 1, geometry: square(10, 10, 20), confidence: 0.88, matched: true },
      { labelId: 2, geometry: square(40, 40, 10), confidence: 0.61, matched: false },
    ],
    groundTruth: [{ labelId: 1, geometry: square(11, 10, 20), matched: true }],
    fp: 1,
  };

  it('fills predicted regions (not dashed) in their label colour and keeps the annotations as outlines', () => {
    const shapes = overlayShapes(image, labels, fit, { fontSize: 10, style: 'masks' });
    expect(shapes.map((s) => [s.role, s.filled, s.dashed, s.color])).toEqual([
      ['gt', false, false, '#ff0000'],
      ['tp', true, false, '#ff0000'],
      ['fp', true, false, '#00ff00'],
    ]);
    expect(shapes.map((s) => s.tag?.text ?? null)).toEqual([null, 'dent 0.88', 'FP scratch 0.61']);
  });

  it('places the mask where the polygon is, scaled into the frame', () => {
    const [, tp] = overlayShapes(image, labels, fit, { fontSize: 0, style: 'masks' });
    // 64 px drawn into 180 units high: scale 2.8125, centred horizontally (dx 30).
    expect(tp!.d).toBe('M58.13 28.13 L114.38 28.13 L114.38 84.38 L58.13 84.38 Z');
  });

  it('draws masks only for segmentation, text for OCR, boxes otherwise', () => {
    expect(['detect', 'obb', 'classify', 'segment', 'ocr'].map((t) => overlayStyleOf(t as 'detect'))).toEqual(['boxes', 'boxes', 'boxes', 'masks', 'text']);
    expect(overlayShapes(image, labels, fit, { fontSize: 0 }).some((s) => s.filled)).toBe(false);
  });
});

describe('overlayShapes: OCR text', () => {
  const rbox = (cx: number, text?: string) => ({ kind: 'rbox', cx, cy: 50, w: 60, h: 20, angle: 30, ...(text === undefined ? {} : { text }) });
  const fit = fitContain(400, 300, 400, 300);
  // The server's verdicts: a line read right is a TP; a misread one an FP, and the line it should have read an FN.
  const image: Pick<TestImageData, 'predictions' | 'groundTruth' | 'fp'> = {
    predictions: [
      { labelId: 1, geometry: rbox(60, 'LOT 42'), confidence: 0.9, matched: true },
      { labelId: 1, geometry: rbox(200, 'EXP 2O27'), confidence: 0.8, matched: false },
      { labelId: 1, geometry: rbox(330, 'noise'), confidence: 0.5, matched: false },
    ],
    groundTruth: [
      { labelId: 1, geometry: rbox(61, 'LOT 42'), matched: true },
      { labelId: 1, geometry: rbox(201, 'EXP 2027'), matched: false },
    ],
    fp: 2,
  };

  it('tags each found box with the text read, the annotations with their true text, and marks misreadings', () => {
    const shapes = overlayShapes(image, labels, fit, { fontSize: 10, style: 'text' });
    expect(shapes.map((s) => [s.role, s.tag?.text, s.textWrong ?? null])).toEqual([
      ['gt', 'LOT 42', null],
      ['fn', 'FN EXP 2027', null],
      ['tp', 'LOT 42', false],
      ['fp', '✗ EXP 2O27', true],
      ['fp', 'FP noise', null],
    ]);
    // Rotated boxes stay rotated: four corners, not an axis-aligned rectangle.
    expect(shapes[2]!.d.match(/[ML]/g)).toHaveLength(4);
    expect(shapes[2]!.text).toBe('LOT 42');
  });

  it('compares a reading only with a true text it overlaps', () => {
    const b = (x: number) => ({ x, y: 0, w: 10, h: 10 });
    expect(boundsIou(b(0), b(5))).toBeCloseTo(50 / 150);
    expect(boundsIou(b(0), b(20))).toBe(0);
    expect(
      textVerdicts(
        [
          { labelId: 1, bounds: b(0), text: 'A1' },
          { labelId: 1, bounds: b(50), text: 'B2' },
          { labelId: 2, bounds: b(0), text: 'A1' },
          { labelId: 1, bounds: b(0) },
        ],
        [
          { labelId: 1, bounds: b(1), text: 'A1' },
          { labelId: 1, bounds: b(8), text: 'B2' },
        ],
      ),
    ).toEqual([false, null, null, null]);
  });
});
