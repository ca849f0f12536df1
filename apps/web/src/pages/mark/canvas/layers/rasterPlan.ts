import type { Viewport } from '@loupe/annotator';
import type { ColorPaths } from '../pathCache';
import type { PathRecorder } from '../pathRecorder';
import { drawImageInto } from './imageLayer';
import { drawShapePaths } from './shapeLayer';

/** Largest cache side in device px (64 MB at most). */
const MAX_SIDE = 4096;
/** Image area cached beyond the visible part at rest, as a share of the canvas size on each side. */
const MARGIN = 0.25;
/**
 * Most device pixels one render may fill, in canvases: a render costs about its area in software raster. A
 * render in the middle of a zoom gets less, so it fits between two frames (or, in the worker, arrives sooner);
 * the render at rest gets more.
 */
const AREA_BUDGET = { exact: 2.5, interactive: 1.5 };
/** A cache drawn at a zoom this much off is re-rendered rather than stretched. */
export const MAX_STRETCH = 4;

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** The visible canvas: CSS px and device pixel ratio. */
export interface Target extends Size {
  readonly dpr: number;
}

export interface Rect {
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

/**
 * One render of the scene: a w×h device-pixel bitmap where image px (x, y) lands at (x·unit + offX, y·unit +
 * offY), unit = scale × dpr, holding the image rectangle `rect`. Plain numbers, so the worker can execute it.
 */
export interface RasterPlan {
  readonly w: number;
  readonly h: number;
  readonly scale: number;
  readonly dpr: number;
  readonly unit: number;
  readonly offX: number;
  readonly offY: number;
  readonly rect: Rect;
}

export function visibleRect(v: Viewport, target: Size, image: Size): Rect {
  return {
    minX: Math.max(0, -v.tx / v.scale),
    minY: Math.max(0, -v.ty / v.scale),
    maxX: Math.min(image.width, (target.width - v.tx) / v.scale),
    maxY: Math.min(image.height, (target.height - v.ty) / v.scale),
  };
}

export function covers(outer: Rect, r: Rect): boolean {
  // An empty visible rectangle (image panned off screen) needs nothing.
  if (r.maxX <= r.minX || r.maxY <= r.minY) return true;
  return r.minX >= outer.minX && r.minY >= outer.minY && r.maxX <= outer.maxX && r.maxY <= outer.maxY;
}

/**
 * Where and how sharp to render for `v`. An exact render (first draw, new content, view at rest) uses the
 * current zoom and the whole image when it fits the area budget, else the visible part with a margin. A render
 * forced by the view running off the cache (zooming out, long pans) covers a viewport more on every side, at a
 * lower resolution if the budget needs it: soft for a moment, but the next frames keep copying instead of
 * re-rendering.
 */
export function planRaster(target: Target, v: Viewport, image: Size, exact: boolean): RasterPlan {
  const { dpr } = target;
  const budget = (exact ? AREA_BUDGET.exact : AREA_BUDGET.interactive) * target.width * target.height * dpr * dpr;
  const vis = visibleRect(v, target, image);
  // Strokes reach a little beyond the image border.
  const pad = 4 / v.scale;
  const margin = exact ? MARGIN : 1;
  const mx = (margin * target.width) / v.scale;
  const my = (margin * target.height) / v.scale;
  let minX = Math.max(-pad, vis.minX - mx);
  let minY = Math.max(-pad, vis.minY - my);
  let maxX = Math.min(image.width + pad, vis.maxX + mx);
  let maxY = Math.min(image.height + pad, vis.maxY + my);
  const whole = (image.width + 2 * pad) * (image.height + 2 * pad);
  if (whole * (v.scale * dpr) ** 2 <= budget) [minX, minY, maxX, maxY] = [-pad, -pad, image.width + pad, image.height + pad];
  let scale = v.scale;
  if (!exact) {
    const fit = Math.sqrt(budget / Math.max(1, (maxX - minX) * (maxY - minY))) / dpr;
    scale = Math.max(v.scale / MAX_STRETCH, Math.min(v.scale, fit));
  }
  const unit = scale * dpr;
  const tx = v.tx * (scale / v.scale);
  const ty = v.ty * (scale / v.scale);
  // Whole device pixels at the current translation, so an exact render is copied without resampling.
  const offX = -Math.floor(minX * unit + tx * dpr) + tx * dpr;
  const offY = -Math.floor(minY * unit + ty * dpr) + ty * dpr;
  const w = Math.min(MAX_SIDE, Math.max(1, Math.ceil(maxX * unit + offX)));
  const h = Math.min(MAX_SIDE, Math.max(1, Math.ceil(maxY * unit + offY)));
  // What the bitmap really holds: pixel p shows image coordinate (p - off) / unit, clipped at MAX_SIDE.
  const rect = { minX: -offX / unit, minY: -offY / unit, maxX: (w - offX) / unit, maxY: (h - offY) / unit };
  return { w, h, scale, dpr, unit, offX, offY, rect };
}

type Context = OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;

/** What a render draws; the same on the page and in the worker. */
export interface SceneContent {
  readonly image: CanvasImageSource | null;
  /** Image size in image px (the editor's, which the annotations use). */
  readonly size: Size;
  /** CSS filter for the image ('none' or brightness/contrast). */
  readonly filter: string;
  readonly shapes: ColorPaths<PathRecorder>;
  readonly tests: ColorPaths<PathRecorder> | null;
}

/** Executes `plan` into a context of plan.w × plan.h device px (cleared first). */
export function paintPlan(ctx: Context, plan: RasterPlan, content: SceneContent): void {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, plan.w, plan.h);
  ctx.setTransform(plan.unit, 0, 0, plan.unit, plan.offX, plan.offY);
  if (content.image) drawImageInto(ctx, content.image, content.size, plan.scale, content.filter);
  drawShapePaths(ctx, content.shapes, content.tests, plan.scale);
}
