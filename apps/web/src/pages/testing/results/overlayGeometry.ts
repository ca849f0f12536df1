import { screenPoint, type ImagePoint, type ScreenPoint } from '@loupe/annotator';
import type { Geometry, TestImageData } from '@loupe/contracts';
import { appendGeometry, type PathSink } from '@/pages/mark/canvas/geometryPath';
import type { Task } from '@/pages/training/shared/tasks';

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

/**
 * How a task's results draw: boxes (detection: dashed outlines), masks (segmentation: predictions as filled,
 * semi-transparent regions, ground truth as outlines) or text (OCR: boxes tagged with the recognised text, the
 * ground truth with the true text, a recognised text that differs from the truth it overlaps marked wrong).
 */
export type OverlayStyle = 'boxes' | 'masks' | 'text';

export const overlayStyleOf = (task: Task): OverlayStyle => (task === 'segment' ? 'masks' : task === 'ocr' ? 'text' : 'boxes');

export interface OverlayShape {
  key: string;
  role: ShapeRole;
  labelId: number;
  color: string;
  d: string;
  /** Predictions are dashed (as on /mark), ground truth solid; masks are filled instead. */
  dashed: boolean;
  /** A predicted mask: drawn filled in its label's colour, semi-transparent. */
  filled: boolean;
  confidence?: number;
  /** OCR: the recognised (prediction) or true (ground truth) text. */
  text?: string;
  /** OCR: a found text box whose recognised text is not the true text of the box it overlaps most. */
  textWrong?: boolean;
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
  /** Tag the ground truth too (the large viewer does; thumbnails only tag predictions and misses, OCR always). */
  tagGroundTruth?: boolean;
  style?: OverlayStyle;
}

/** The text a shape carries (OCR labels and predictions: geometry `text`). */
export function textOf(geometry: unknown): string | undefined {
  const text = (geometry as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** Overlap of two rectangles over their union, 0 to 1. */
export function boundsIou(a: Bounds, b: Bounds): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

/** Below this overlap a recognised text is not compared with a true one: they are different boxes. */
export const TEXT_MATCH_IOU = 0.3;

/**
 * Whether each found text box read its text wrong: compared with the true text of the ground-truth box of its
 * label that it overlaps most (at least TEXT_MATCH_IOU of their outlines' bounds); null when there is nothing to
 * compare (no text, no true text nearby). Exact, as the server judges it: a misread line is a false positive
 * there (and the line it should have read a miss), so this tells a misreading from a box found where no text is.
 */
export function textVerdicts(predictions: { labelId: number; bounds: Bounds; text?: string }[], truths: { labelId: number; bounds: Bounds; text?: string }[]): (boolean | null)[] {
  return predictions.map((p) => {
    let best: { iou: number; text?: string } | null = null;
    for (const g of truths) {
      if (g.labelId !== p.labelId || g.text === undefined) continue;
      const iou = boundsIou(p.bounds, g.bounds);
      if (iou >= TEXT_MATCH_IOU && (!best || iou > best.iou)) best = { iou, text: g.text };
    }
    if (!best || p.text === undefined) return null;
    return p.text !== best.text;
  });
}

/** Every drawable shape of an image's result, ground truth first so predictions draw on top. */
export function overlayShapes(image: Pick<TestImageData, 'predictions' | 'groundTruth' | 'fp'>, labels: ReadonlyMap<number, LabelLook>, fit: Fit, options: OverlayOptions): OverlayShape[] {
  const style = options.style ?? 'boxes';
  const look = (id: number): LabelLook => labels.get(id) ?? { name: `#${id}`, color: UNKNOWN_LABEL_COLOR };
  const drawn = (box: TestImageData['predictions'][number]) => {
    const g = asGeometry(box.geometry);
    return g ? { box, text: textOf(g), ...outline(g, fit) } : null;
  };
  const truths = image.groundTruth.map(drawn);
  const predictions = image.predictions.map(drawn);
  const wrong =
    style === 'text'
      ? textVerdicts(
          predictions.map((p) => (p ? { labelId: p.box.labelId, bounds: p.bounds, text: p.text } : { labelId: -1, bounds: { x: 0, y: 0, w: 0, h: 0 } })),
          truths.flatMap((g) => (g ? [{ labelId: g.box.labelId, bounds: g.bounds, text: g.text }] : [])),
        )
      : [];

  const shapes: OverlayShape[] = [];
  const add = (key: string, role: ShapeRole, d: NonNullable<ReturnType<typeof drawn>>, tagText: string | null, textWrong?: boolean) => {
    const prediction = role === 'tp' || role === 'fp' || role === 'pred';
    const filled = prediction && style === 'masks';
    const shape: OverlayShape = { key, role, labelId: d.box.labelId, color: look(d.box.labelId).color, d: d.d, dashed: prediction && !filled, filled };
    if (d.box.confidence !== undefined) shape.confidence = d.box.confidence;
    if (style === 'text' && d.text !== undefined) shape.text = d.text;
    if (textWrong !== undefined) shape.textWrong = textWrong;
    const side = prediction ? 'above' : 'below';
    if (tagText && options.fontSize > 0) shape.tag = { text: tagText, rect: tagRect(d.bounds, tagText, options.fontSize, fit, side) };
    shapes.push(shape);
  };
  truths.forEach((g, i) => {
    if (!g) return;
    const role: ShapeRole = g.box.matched ? 'gt' : 'fn';
    const name = look(g.box.labelId).name;
    // OCR: the true text is what the found text is read against, so it is always shown.
    const own = style === 'text' && g.text ? g.text : name;
    const text = role === 'fn' ? `FN ${own}` : options.tagGroundTruth || (style === 'text' && g.text) ? own : null;
    add(`g${i}`, role, g, text);
  });
  const judged = image.groundTruth.length > 0 || image.fp > 0;
  predictions.forEach((p, i) => {
    if (!p) return;
    const role: ShapeRole = p.box.matched ? 'tp' : judged ? 'fp' : 'pred';
    const confidence = p.box.confidence === undefined ? '' : ` ${p.box.confidence.toFixed(2)}`;
    const fp = role === 'fp' ? 'FP ' : '';
    if (style === 'text' && p.text !== undefined) {
      const textWrong = wrong[i] ?? undefined;
      // A misread line is a false positive on the server; the cross says why, so it needs no "FP".
      add(`p${i}`, role, p, `${textWrong ? '✗ ' : fp}${p.text || '∅'}`, textWrong);
    } else add(`p${i}`, role, p, `${fp}${look(p.box.labelId).name}${confidence}`);
  });
  return shapes;
}
