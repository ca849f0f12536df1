import type { Geometry, ModelType, RBoxGeometry } from '@loupe/contracts';
import { area, canonical, fitToImage, type ImageSize } from '../labeling/geometry.js';
import { boundsOf, outlineOf, type ConvertReason, type ParsedAnnotation, type SkipReason } from './types.js';

type Kind = Geometry['kind'];

/** The shape kinds each model type trains on (the labeling studio's tools, packages/annotator TOOLS_BY_MODE). */
export const KINDS_BY_TYPE: Partial<Record<ModelType, readonly Kind[]>> = {
  DETECTION: ['box', 'rbox'],
  OCR: ['box', 'rbox'],
  SEGMENTATION: ['polygon'],
  MEASURE: ['polygon', 'rbox'],
};

type Point = [number, number];
const withText = (text: string | undefined) => (text === undefined ? {} : { text });


/**
 * The smallest rotated box around the points (rotating calipers over the convex hull's edges). For a
 * rectangle it is the rectangle itself: w along the first edge (points[0] → points[1]) when that edge is one
 * of the hull's, angle in degrees clockwise (image y down) in (−180, 180].
 */
export function minAreaRect(points: readonly Point[]): Omit<RBoxGeometry, 'kind' | 'text'> {
  const hull = convexHull(points);
  let best: { area: number; cx: number; cy: number; w: number; h: number; angle: number } | null = null;
  // The first edge as given first, so a rectangle keeps its own corner order (and its angle) on a round trip.
  const edges: [Point, Point][] = [[points[0]!, points[1]!], ...hull.map((p, i) => [p, hull[(i + 1) % hull.length]!] as [Point, Point])];
  for (const [a, b] of edges) {
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (!(len > 0)) continue;
    const ux = (b[0] - a[0]) / len;
    const uy = (b[1] - a[1]) / len;
    let [minU, maxU, minV, maxV] = [Infinity, -Infinity, Infinity, -Infinity];
    for (const [x, y] of hull) {
      const u = x * ux + y * uy;
      const v = -x * uy + y * ux;
      [minU, maxU, minV, maxV] = [Math.min(minU, u), Math.max(maxU, u), Math.min(minV, v), Math.max(maxV, v)];
    }
    const w = maxU - minU;
    const h = maxV - minV;
    // Strictly smaller only (with a relative margin for rounding): ties keep the first edge's orientation.
    if (best && !(w * h < best.area * (1 - 1e-9))) continue;
    const cu = (minU + maxU) / 2;
    const cv = (minV + maxV) / 2;
    best = { area: w * h, cx: cu * ux - cv * uy, cy: cu * uy + cv * ux, w, h, angle: (Math.atan2(uy, ux) * 180) / Math.PI };
  }
  if (!best) return { cx: points[0]?.[0] ?? 0, cy: points[0]?.[1] ?? 0, w: 0, h: 0, angle: 0 };
  const angle = best.angle <= -180 ? best.angle + 360 : best.angle;
  return { cx: best.cx, cy: best.cy, w: best.w, h: best.h, angle };
}

/** Andrew's monotone chain; collinear points dropped. */
function convexHull(points: readonly Point[]): Point[] {
  const pts = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (pts.length < 3) return pts;
  const cross = (o: Point, a: Point, b: Point) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const half = (list: Point[]) => {
    const out: Point[] = [];
    for (const p of list) {
      while (out.length >= 2 && cross(out[out.length - 2]!, out[out.length - 1]!, p) <= 0) out.pop();
      out.push(p);
    }
    out.pop();
    return out;
  };
  return [...half(pts), ...half([...pts].reverse())];
}

export interface Adapted {
  shapes: Geometry[];
  converted: ConvertReason[];
}

/**
 * One parsed shape (already in image pixels) as the kinds `type` trains on:
 * - detection, OCR (box, rotated box): a four-corner shape the format means as a box (`quad`) becomes the
 *   smallest rotated box around it (exactly the rectangle for a rectangle); any other polygon, and a shape in
 *   several parts, becomes one box around all of it;
 * - segmentation (polygon): boxes and rotated boxes become their four corners; each part its own polygon;
 * - measurement (polygon, rotated box): a `quad` rectangle becomes a rotated box, a box a rotated box at 0°.
 * What changed kind is named (reported per file), never silent.
 */
export function adaptToModel(a: ParsedAnnotation, type: ModelType): Adapted {
  const kinds = KINDS_BY_TYPE[type] ?? [];
  const parts = [a.geometry, ...(a.moreParts ?? [])];
  const text = a.geometry.text;
  const converted: ConvertReason[] = a.converted ? [a.converted] : [];
  const note = (r: ConvertReason) => {
    if (!converted.includes(r)) converted.push(r);
  };
  if (!kinds.includes('polygon')) {
    if (parts.length === 1 && kinds.includes(a.geometry.kind)) return { shapes: [a.geometry], converted };
    if (parts.length === 1 && a.quad && a.geometry.kind === 'polygon' && a.geometry.points.length === 4) {
      note('quadToRbox');
      return { shapes: [{ kind: 'rbox', ...minAreaRect(a.geometry.points), ...withText(text) }], converted };
    }
    const all = parts.flatMap(outlineOf);
    const b = boundsOf({ kind: 'polygon', points: all });
    if (parts.some((p) => p.kind !== 'box')) note('polygonToBox');
    return { shapes: [{ kind: 'box', ...b, ...withText(text) }], converted };
  }
  if (parts.length > 1) note('partsSplit');
  const shapes = parts.map((p): Geometry => {
    if (kinds.includes(p.kind) && !(p.kind === 'polygon' && a.quad && kinds.includes('rbox') && isRectangle(p.points))) return p;
    if (p.kind === 'polygon') {
      note('quadToRbox');
      return { kind: 'rbox', ...minAreaRect(p.points), ...withText(p.text ?? text) };
    }
    if (p.kind === 'box' && kinds.includes('rbox')) {
      note('boxToRbox');
      return { kind: 'rbox', cx: (p.x1 + p.x2) / 2, cy: (p.y1 + p.y2) / 2, w: Math.abs(p.x2 - p.x1), h: Math.abs(p.y2 - p.y1), angle: 0, ...withText(p.text) };
    }
    note('boxToPolygon');
    return { kind: 'polygon', points: outlineOf(p), ...withText(p.text) };
  });
  if (text !== undefined) for (const s of shapes) s.text ??= text;
  return { shapes, converted };
}

/** Four points whose corners are right angles (within a hundredth of a pixel over the side's length). */
function isRectangle(points: readonly Point[]): boolean {
  if (points.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const [p, q, r] = [points[i]!, points[(i + 1) % 4]!, points[(i + 2) % 4]!];
    const [ax, ay, bx, by] = [q[0] - p[0], q[1] - p[1], r[0] - q[0], r[1] - q[1]];
    const la = Math.hypot(ax, ay);
    const lb = Math.hypot(bx, by);
    if (!(la > 0 && lb > 0)) return false;
    if (Math.abs(ax * bx + ay * by) / Math.max(la, lb) > 0.02) return false;
  }
  return true;
}

/** Fractions of the image (YOLO) to pixels. */
export function scaleGeometry(g: Geometry, size: ImageSize): Geometry {
  const { width: W, height: H } = size;
  if (g.kind === 'box') return { ...g, x1: g.x1 * W, y1: g.y1 * H, x2: g.x2 * W, y2: g.y2 * H };
  if (g.kind === 'polygon') return { ...g, points: g.points.map(([x, y]) => [x * W, y * H] as Point) };
  // A rotated box in fractions has no single meaning when W ≠ H: parsers give fractions only as boxes and points.
  return { ...g, cx: g.cx * W, cy: g.cy * H, w: g.w * W, h: g.h * H };
}

export type Fitted = { ok: Geometry; clamped: boolean } | { skipped: SkipReason };

/**
 * The shape as the labeling studio stores it (fitToImage: clamped into the image), or why not: no area to
 * begin with (invalid), nothing left inside the image (outside), under the model's minimum area (tooSmall).
 */
export function fitShape(g: Geometry, size: ImageSize, minArea: number): Fitted {
  if (!(area(g) > 0)) return { skipped: 'invalid' };
  const fitted = fitToImage(g, size);
  if (!fitted) return { skipped: g.kind === 'rbox' ? 'outside' : 'invalid' };
  if (!(area(fitted) > 0)) return { skipped: 'outside' };
  if (area(fitted) < minArea) return { skipped: 'tooSmall' };
  return { ok: fitted, clamped: canonical(fitted) !== canonical(g) };
}
