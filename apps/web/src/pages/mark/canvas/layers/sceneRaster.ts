import type { Viewport } from '@loupe/annotator';
import { perfMark } from '../../shared/perfMarks';
import { encodePaths } from '../pathRecorder';
import { sceneWorker, type SceneWorkerClient } from '../worker/sceneWorkerClient';
import { MAX_STRETCH, covers, paintPlan, planRaster, visibleRect, type RasterPlan, type SceneContent } from './rasterPlan';

type Surface = OffscreenCanvas | HTMLCanvasElement;

/** What the scene bitmap shows; any change of these re-renders it. */
export interface Scene extends SceneContent {
  /** Where `image` came from: the worker decodes (or already holds) it by URL. */
  readonly imageUrl: string | null;
}

interface Cache {
  readonly source: Surface | ImageBitmap;
  readonly contentId: number;
  readonly plan: RasterPlan;
}

export interface Canvas {
  readonly ctx: CanvasRenderingContext2D;
  /** CSS px. */
  readonly width: number;
  readonly height: number;
  readonly dpr: number;
}

/** Worker renders that failed in a row before this raster draws on the page only. */
const MAX_WORKER_FAILURES = 2;
/** Names each raster's content in the worker. */
let owners = 0;

function newSurface(w: number, h: number): Surface {
  if (typeof OffscreenCanvas === 'function') return new OffscreenCanvas(w, h);
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

/**
 * The image and the shapes rasterized into an offscreen bitmap, then only copied while the view pans or zooms:
 * filling and stroking 2,000 polygons costs 30-60 ms in software raster (no GPU), copying a bitmap ~3 ms. New
 * content (an edit, another image) is rendered here at once, so an edit never shows a stale scene. When only
 * the view has moved too far (zoom, long pan) or has come to rest, the scene worker renders while each frame
 * keeps copying the previous bitmap stretched (`onUpdate` asks for a frame when the new one arrives), so no
 * frame waits for a render; the last whole-image render stays underneath meanwhile, so a zoom out never shows
 * blank edges. Without a worker (jsdom, old browsers) those renders happen here too.
 */
export class SceneRaster {
  private cache: Cache | null = null;
  /** A whole-image render of the same content, drawn under a partial cache that does not cover the view. */
  private base: Cache | null = null;
  /** This thread's render target, reused while its size fits. */
  private surface: Surface | null = null;
  private content: Scene | null = null;
  private contentId = 0;
  /** The content the worker holds. */
  private sentId = 0;
  private pending = false;
  private failures = 0;
  private readonly owner = ++owners;

  constructor(
    private readonly onUpdate: () => void,
    private readonly worker: () => SceneWorkerClient | null = sceneWorker,
  ) {}

  /**
   * Draws the scene for `v` into the visible canvas; `exact` is false when a stretched or shifted copy was used.
   * `forceExact` re-renders at the current zoom (the view has come to rest after such frames).
   */
  draw(target: Canvas, v: Viewport, scene: Scene, forceExact: boolean): { exact: boolean } {
    if (!this.content || !sameContent(this.content, scene)) {
      this.content = scene;
      this.contentId++;
    }
    let cache = this.cache;
    if (!cache || cache.contentId !== this.contentId || cache.plan.dpr !== target.dpr) {
      cache = this.renderHere(target, v, scene, true);
    } else {
      const k = v.scale / cache.plan.scale;
      const reusable = k <= MAX_STRETCH && k >= 1 / MAX_STRETCH && covers(cache.plan.rect, visibleRect(v, target, scene.size));
      if (!reusable || forceExact) {
        const worker = this.failures < MAX_WORKER_FAILURES && (!scene.image || scene.imageUrl) ? this.worker() : null;
        if (worker) this.request(worker, target, v, scene, forceExact);
        else cache = this.renderHere(target, v, scene, forceExact);
      }
    }
    const ctx = target.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    const base = this.base;
    if (base && base !== cache && base.contentId === cache.contentId && !covers(cache.plan.rect, visibleRect(v, target, scene.size))) blit(ctx, base, v);
    return { exact: blit(ctx, cache, v) };
  }

  /** Frees the bitmaps (the page leaving); a render still in the worker is dropped when it arrives. */
  clear(): void {
    if (this.sentId) this.worker()?.release(this.owner);
    this.sentId = 0;
    this.contentId++;
    this.content = null;
    for (const c of [this.cache, this.base]) if (c) this.release(c);
    this.cache = this.base = null;
    if (this.surface) this.surface.width = this.surface.height = 0;
    this.surface = null;
  }

  private renderHere(target: Canvas, v: Viewport, scene: Scene, exact: boolean): Cache {
    const plan = planRaster(target, v, scene.size, exact);
    // The base keeps its pixels: a surface it shows is not drawn over.
    let surface = this.surface && this.base?.source !== this.surface ? this.surface : null;
    if (surface && (surface.width !== plan.w || surface.height !== plan.h)) [surface.width, surface.height] = [plan.w, plan.h];
    surface = this.surface = surface ?? newSurface(plan.w, plan.h);
    perfMark('raster:start');
    paintPlan(surface.getContext('2d') as OffscreenCanvasRenderingContext2D, plan, scene);
    perfMark('raster:end');
    const next = { source: surface, contentId: this.contentId, plan };
    this.swap(next);
    return next;
  }

  /** One worker render at a time: when it arrives, a view that has moved on asks again if it still needs to. */
  private request(worker: SceneWorkerClient, target: Canvas, v: Viewport, scene: Scene, exact: boolean): void {
    if (this.pending) return;
    const contentId = this.contentId;
    if (this.sentId !== contentId) {
      worker.setContent({
        owner: this.owner,
        contentId,
        imageUrl: scene.image ? scene.imageUrl : null,
        size: scene.size,
        filter: scene.filter,
        shapes: encodePaths(scene.shapes),
        tests: scene.tests ? encodePaths(scene.tests) : null,
      });
      this.sentId = contentId;
    }
    const plan = planRaster(target, v, scene.size, exact);
    this.pending = true;
    worker.render(this.owner, contentId, plan).then(
      (bitmap) => {
        this.pending = false;
        this.failures = 0;
        if (contentId !== this.contentId || !this.cache) {
          bitmap.close();
          return;
        }
        this.swap({ source: bitmap, contentId, plan });
        this.onUpdate();
      },
      () => {
        this.pending = false;
        this.failures++;
        this.onUpdate();
      },
    );
  }

  /** A new render replaces the cache; a whole-image one of the same content stays as the base. */
  private swap(next: Cache): void {
    const old = this.cache;
    this.cache = next;
    if (this.base && this.base.contentId !== next.contentId) {
      this.release(this.base);
      this.base = null;
    }
    if (!old || old.source === next.source) return;
    const size = this.content?.size;
    if (size && old.contentId === next.contentId && covers(old.plan.rect, { minX: 0, minY: 0, maxX: size.width, maxY: size.height })) {
      if (this.base) this.release(this.base);
      this.base = old;
    } else if (old !== this.base) this.release(old);
  }

  /** Worker bitmaps are closed and abandoned surfaces freed; the current surface is kept for the next render. */
  private release(c: Cache): void {
    if (c.source === this.surface) return;
    if ('close' in c.source) c.source.close();
    else c.source.width = c.source.height = 0;
  }
}

/** Copies `c` into the visible canvas for `v`; true when that was pixel for pixel (no resampling). */
function blit(ctx: CanvasRenderingContext2D, c: Cache, v: Viewport): boolean {
  const { plan } = c;
  const dpr = plan.dpr;
  // Where the cache's pixel (0,0) lands now, in device px: undo the render transform, apply the current one.
  let x = (-plan.offX / plan.unit) * v.scale * dpr + v.tx * dpr;
  let y = (-plan.offY / plan.unit) * v.scale * dpr + v.ty * dpr;
  const k = v.scale / plan.scale;
  // A render for this very view lands on whole pixels up to rounding; missing that by 1e-12 made a zoomed view
  // at rest re-render every SETTLE_MS forever.
  const snap = (p: number) => (Math.abs(p - Math.round(p)) < 1e-6 ? Math.round(p) : p);
  [x, y] = [snap(x), snap(y)];
  const exact = k === 1 && Number.isInteger(x) && Number.isInteger(y);
  ctx.imageSmoothingEnabled = !exact;
  ctx.drawImage(c.source, x, y, plan.w * k, plan.h * k);
  return exact;
}

function sameContent(a: Scene, b: Scene): boolean {
  return a.image === b.image && a.imageUrl === b.imageUrl && a.size === b.size && a.filter === b.filter && a.shapes === b.shapes && a.tests === b.tests;
}
