import { screenPoint, type ImagePoint, type ScreenPoint } from '@loupe/annotator';
import type { Geometry, TestImageData } from '@loupe/contracts';
import { appendGeometry, type PathSink } from '@/pages/mark/canvas/geometryPath';

/**
 * Geometry of the result overlay: where an image drawn "contain" in a box lands, the outline of each predicted
 * or ground-truth shape in the box's units, and where its tag goes. Pure, so it is tested without a DOM; the
 * outlines come from the labeling canvas's own path builder (appendGeometry), so boxes, rotated boxes and
 * polygons look the same here as on /mark.
 */

/** An image of imageW × imageH drawn into a box of boxW × boxH, centred, aspect kept (CSS object-fit: contain). */
export interface Fit {
  scale: number;
  dx: number;
  dy: number;
  boxW: number;
  boxH: number;
}

export function fitContain(imageW: number, imageH: number, boxW: number, boxH: number): Fit {
  if (imageW <= 0 || imageH <= 0) return { scale: 1, dx: 0, dy: 0, boxW, boxH };
  const scale = Math.min(boxW / imageW, boxH / imageH);
  return { scale, dx: (boxW - imageW * scale) / 2, dy: (boxH - imageH * scale) / 2, boxW, boxH };
}

export function toBox(p: ImagePoint | { x: number; y: number }, fit: Fit): ScreenPoint {
  return screenPoint(p.x * fit.scale + fit.dx, p.y * fit.scale + fit.dy);
}

/** The contract sends geometry as unknown (predictions and annotations share it): only known shapes draw. */
export function asGeometry(value: unknown): Geometry | null {
  if (!value || typeof value !== 'object') return null;
  const g = value as Record<string, unknown>;
  const nums = (...keys: string[]) => keys.every((k) => typeof g[k] === 'number' && Number.isFinite(g[k]));
  if (g.kind === 'box' && nums('x1', 'y1', 'x2', 'y2')) return value as Geometry;
  if (g.kind === 'rbox' && nums('cx', 'cy', 'w', 'h', 'angle')) return value as Geometry;
  if (g.kind === 'polygon' && Array.isArray(g.points) && g.points.length >= 3) return value as Geometry;
  return null;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** A path sink that writes SVG path data in box units; it also tracks the outline's bounds. */
class SvgPath implements PathSink {
  d = '';
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;
  constructor(private readonly fit: Fit) {}
  private point(cmd: 'M' | 'L', x: number, y: number) {
    const p = toBox({ x, y }, this.fit);
    this.minX = Math.min(this.minX, p.x);
    this.minY = Math.min(this.minY, p.y);
    this.maxX = Math.max(this.maxX, p.x);
    this.maxY = Math.max(this.maxY, p.y);
    this.d += `${this.d ? ' ' : ''}${cmd}${round(p.x)} ${round(p.y)}`;
  }
  moveTo(x: number, y: number) {
    this.point('M', x, y);
  }
  lineTo(x: number, y: number) {
    this.point('L', x, y);
  }
  rect(x: number, y: number, w: number, h: number) {
    this.moveTo(x, y);
    this.lineTo(x + w, y);
    this.lineTo(x + w, y + h);
    this.lineTo(x, y + h);
    this.closePath();
  }
  closePath() {
    this.d += ' Z';
  }
}

export interface Bounds {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function outline(g: Geometry, fit: Fit): { d: string; bounds: Bounds } {
  const path = new SvgPath(fit);
  appendGeometry(path, g);
  return { d: path.d, bounds: { x: path.minX, y: path.minY, w: path.maxX - path.minX, h: path.maxY - path.minY } };
}

export const TAG_HEIGHT_EM = 1.4;
const CHAR_EM = 0.6;

/**
 * A text tag's rectangle at the shape's left edge: predictions' above its top, ground truth's below its bottom
 * (a found object's two tags would otherwise cover each other); just inside the shape when the frame has no
 * room outside, and always inside the frame.
 */
export function tagRect(bounds: Bounds, text: string, fontSize: number, fit: Fit, side: 'above' | 'below' = 'above'): Bounds {
  const h = fontSize * TAG_HEIGHT_EM;
  const w = Math.min(fit.boxW, text.length * fontSize * CHAR_EM + fontSize * 0.6);
  const bottom = bounds.y + bounds.h;
  const y =
    side === 'above'
      ? bounds.y - h >= 0
        ? bounds.y - h
        : Math.min(Math.max(bounds.y, 0), fit.boxH - h)
      : bottom + h <= fit.boxH
        ? bottom
        : Math.max(Math.min(bottom, fit.boxH) - h, 0);
  const x = Math.min(Math.max(bounds.x, 0), fit.boxW - w);
  return { x, y, w, h };
}

/**
 * tp/fp: a prediction that matched a ground-truth box or not; pred: a prediction on an image with nothing to
 * judge it by (no ground truth, no false positive counted); gt/fn: a ground-truth box found or missed.
 */
export type ShapeRole = 'tp' | 'fp' | 'pred' | 'gt' | 'fn';

export interface OverlayShape {
  key: string;
  role: ShapeRole;
  labelId: number;
  color: string;
  d: string;
  /** Predictions are dashed (as on /mark), ground truth solid. */
  dashed: boolean;
  confidence?: number;
  tag?: { text: string; rect: Bounds };
}

export interface LabelLook {
  name: string;
  color: string;
}

/** A label deleted since the training still draws, grey and by its id. */
export const UNKNOWN_LABEL_COLOR = '#8c8c8c';

export interface OverlayOptions {
  /** Tag font size in box units; 0 draws no tags. */
  fontSize: number;
  /** Tag the ground truth too (the large viewer does; thumbnails only tag predictions and misses). */
  tagGroundTruth?: boolean;
}

/** Every drawable shape of an image's result, ground truth first so predictions draw on top. */
export function overlayShapes(image: Pick<TestImageData, 'predictions' | 'groundTruth' | 'fp'>, labels: ReadonlyMap<number, LabelLook>, fit: Fit, options: OverlayOptions): OverlayShape[] {
  const look = (id: number): LabelLook => labels.get(id) ?? { name: `#${id}`, color: UNKNOWN_LABEL_COLOR };
  const shapes: OverlayShape[] = [];
  const add = (key: string, role: ShapeRole, box: TestImageData['predictions'][number], text: string | null) => {
    const g = asGeometry(box.geometry);
    if (!g) return;
    const { d, bounds } = outline(g, fit);
    const shape: OverlayShape = { key, role, labelId: box.labelId, color: look(box.labelId).color, d, dashed: role === 'tp' || role === 'fp' || role === 'pred' };
    if (box.confidence !== undefined) shape.confidence = box.confidence;
    const side = role === 'gt' || role === 'fn' ? 'below' : 'above';
    if (text && options.fontSize > 0) shape.tag = { text, rect: tagRect(bounds, text, options.fontSize, fit, side) };
    shapes.push(shape);
  };
  image.groundTruth.forEach((b, i) => {
    const role: ShapeRole = b.matched ? 'gt' : 'fn';
    const text = role === 'fn' ? `FN ${look(b.labelId).name}` : options.tagGroundTruth ? look(b.labelId).name : null;
    add(`g${i}`, role, b, text);
  });
  const judged = image.groundTruth.length > 0 || image.fp > 0;
  image.predictions.forEach((b, i) => {
    const role: ShapeRole = b.matched ? 'tp' : judged ? 'fp' : 'pred';
    const confidence = b.confidence === undefined ? '' : ` ${b.confidence.toFixed(2)}`;
    add(`p${i}`, role, b, `${role === 'fp' ? 'FP ' : ''}${look(b.labelId).name}${confidence}`);
  });
  return shapes;
}
