import type { Viewport } from '@loupe/annotator';
import type { ColorPaths } from '../pathCache';
import { drawImageInto } from './imageLayer';
import { perfMark } from '../../shared/perfMarks';
import { drawShapePaths } from './shapeLayer';

type Surface = OffscreenCanvas | HTMLCanvasElement;
type Context = OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;

/** Largest cache side in device px (64 MB at most). */
const MAX_SIDE = 4096;
/** Image area cached beyond the visible part at rest, as a share of the canvas size on each side. */
const MARGIN = 0.25;
/**
 * Most device pixels one render may fill, in canvases: a render costs about its area in software raster. A
 * render in the middle of a zoom gets less, so it fits between two frames; the render at rest gets more.
 */
const AREA_BUDGET = { exact: 2.5, interactive: 1.5 };
/** A cache drawn at a zoom this much off is re-rendered rather than stretched. */
const MAX_STRETCH = 4;

/** What the scene bitmap shows; any change of these re-renders it. */
export interface Scene {
  readonly image: CanvasImageSource | null;
  /** Image size in image px (the editor's, which the annotations use). */
  readonly size: { readonly width: number; readonly height: number };
  /** CSS filter for the image ('none' or brightness/contrast). */
  readonly filter: string;
  readonly shapes: ColorPaths<Path2D>;
  readonly tests: ColorPaths<Path2D> | null;
}

interface Cache {
  readonly surface: Surface;
  readonly ctx: Context;
  readonly image: CanvasImageSource | null;
  readonly size: Scene['size'];
  readonly filter: string;
  readonly shapes: ColorPaths<Path2D>;
  readonly tests: ColorPaths<Path2D> | null;
  readonly dpr: number;
  readonly scale: number;
  /** Image-space rectangle the cache holds. */
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
  /** Device-pixel translation used when rendering: cache px = image px × scale × dpr + (offX, offY). */
  readonly offX: number;
  readonly offY: number;
}

export interface Canvas {
  readonly ctx: CanvasRenderingContext2D;
  /** CSS px. */
  readonly width: number;
  readonly height: number;
  readonly dpr: number;
}

function newSurface(w: number, h: number): Surface {
  if (typeof OffscreenCanvas === 'function') return new OffscreenCanvas(w, h);
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

/**
 * The image and the shapes rasterized once into an offscreen bitmap, then only copied while the view pans or
 * zooms: filling and stroking 2,000 polygons costs ~30 ms per frame in software raster (no GPU), copying a
 * bitmap ~3 ms, and one visible layer less saves the compositor another ~2.5 ms a frame. A copy at another
 * zoom is slightly soft, so `draw` answers `exact: false` and the caller re-renders once the view rests.
 */
export class SceneRaster {
  private cache: Cache | null = null;

  /**
   * Draws the shapes for `v` into the visible canvas; `exact` is false when a stretched or shifted copy was
   * used. `forceExact` re-renders (the view has come to rest after such frames).
   */
  draw(target: Canvas, v: Viewport, scene: Scene, forceExact: boolean): { exact: boolean } {
    let cache = this.cache;
    const same = !!cache && sameContent(cache, scene, target.dpr);
    const k = cache ? v.scale / cache.scale : 1;
    const reusable = same && k <= MAX_STRETCH && k >= 1 / MAX_STRETCH && covers(cache!, visibleRect(v, target, scene.size)) && !forceExact;
    if (!reusable) cache = this.render(target, v, scene, forceExact || !same);
    const c = cache!;
    // Where the cache's pixel (0,0) lands now, in device px: undo the render transform, apply the current one.
    const x = (-c.offX / (c.scale * target.dpr)) * v.scale * target.dpr + v.tx * target.dpr;
    const y = (-c.offY / (c.scale * target.dpr)) * v.scale * target.dpr + v.ty * target.dpr;
    const w = c.surface.width * (v.scale / c.scale);
    const h = c.surface.height * (v.scale / c.scale);
    const ctx = target.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    const exact = v.scale === c.scale && Number.isInteger(x) && Number.isInteger(y);
    ctx.imageSmoothingEnabled = !exact;
    ctx.drawImage(c.surface, x, y, w, h);
    return { exact };
  }

  /** Frees the bitmap (a page leaving, an image switch). */
  clear(): void {
    if (this.cache) {
      this.cache.surface.width = 0;
      this.cache.surface.height = 0;
    }
    this.cache = null;
  }

  /**
   * Renders the cache for `v`. An exact render (first draw, new content, view at rest) uses the current zoom and
   * the whole image when it fits the area budget, else the visible part with a margin. A render forced by the
   * view running off the cache (zooming out, long pans) covers a viewport more on every side, at a lower
   * resolution if the budget needs it: soft for a moment, but the next frames keep copying instead of
   * re-rendering.
   */
  private render(target: Canvas, v: Viewport, scene: Scene, exact: boolean): Cache {
    const { dpr } = target;
    const image = scene.size;
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
    const offX = -Math.floor(minX * unit + tx * dpr) + tx * dpr;
    const offY = -Math.floor(minY * unit + ty * dpr) + ty * dpr;
    const w = Math.min(MAX_SIDE, Math.max(1, Math.ceil(maxX * unit + offX)));
    const h = Math.min(MAX_SIDE, Math.max(1, Math.ceil(maxY * unit + offY)));
    let surface = this.cache?.surface;
    let ctx = this.cache?.ctx;
    if (!surface || !ctx || surface.width !== w || surface.height !== h) {
      this.clear();
      surface = newSurface(w, h);
      ctx = surface.getContext('2d') as Context;
    } else {
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.clearRect(0, 0, w, h);
    }
    perfMark('raster:start');
    ctx.setTransform(unit, 0, 0, unit, offX, offY);
    if (scene.image) drawImageInto(ctx, scene.image, image, scale, scene.filter);
    drawShapePaths(ctx, scene.shapes, scene.tests, scale);
    perfMark('raster:end');
    const { shapes, tests, filter } = scene;
    // What the bitmap really holds: pixel p shows image coordinate (p - off) / unit, clipped at MAX_SIDE.
    this.cache = { surface, ctx, image: scene.image, size: scene.size, filter, shapes, tests, dpr, scale, minX: -offX / unit, minY: -offY / unit, maxX: (w - offX) / unit, maxY: (h - offY) / unit, offX, offY };
    return this.cache;
  }
}

function sameContent(c: Cache, scene: Scene, dpr: number): boolean {
  return c.image === scene.image && c.size === scene.size && c.filter === scene.filter && c.shapes === scene.shapes && c.tests === scene.tests && c.dpr === dpr;
}

function visibleRect(v: Viewport, target: Canvas, image: { width: number; height: number }) {
  return {
    minX: Math.max(0, -v.tx / v.scale),
    minY: Math.max(0, -v.ty / v.scale),
    maxX: Math.min(image.width, (target.width - v.tx) / v.scale),
    maxY: Math.min(image.height, (target.height - v.ty) / v.scale),
  };
}

function covers(c: Cache, r: { minX: number; minY: number; maxX: number; maxY: number }): boolean {
  // An empty visible rectangle (image panned off screen) needs nothing.
  if (r.maxX <= r.minX || r.maxY <= r.minY) return true;
  return r.minX >= c.minX && r.minY >= c.minY && r.maxX <= c.maxX && r.maxY <= c.maxY;
}
