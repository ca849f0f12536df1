import { cursorFor, type Editor, type EditorState, type LabelInfo, type Viewport } from '@loupe/annotator';
import { canvasFilters, cssFilter, type ImageLook } from './layers/imageLayer';
import { drawTextTags } from './layers/labelText';
import { drawOverlayLayer } from './layers/overlayLayer';
import { SceneRaster } from './layers/sceneRaster';
import { perfMark } from '../shared/perfMarks';
import { clear, setScreenTransform } from './layers/view';
import { ShapePathCache, TestPathCache, colorMap, type ColorPaths, type TestResult } from './pathCache';
import { PathRecorder } from './pathRecorder';

export interface Layers {
  /** Image and shapes (from the raster cache) with their text tags. */
  readonly scene: HTMLCanvasElement;
  /** Selection, hover, handles, the drawing in progress. */
  readonly overlay: HTMLCanvasElement;
}

interface Drawn {
  state: EditorState | null;
  viewport: Viewport | null;
  image: object | null;
  source: CanvasImageSource | null;
  filter: string;
  shapes: ColorPaths<PathRecorder> | null;
  tests: ColorPaths<PathRecorder> | null;
  size: number;
}

const context = (c: HTMLCanvasElement) => c.getContext('2d')!;
/** After the last stretched frame, this long without a change and the scene is re-rendered crisp. */
const SETTLE_MS = 150;
const NOTHING_DRAWN: Drawn = { state: null, viewport: null, image: null, source: null, filter: '', shapes: null, tests: null, size: -1 };

/**
 * Draws an editor's state on two stacked canvases, at most once per animation frame however many changes
 * arrive: the scene (image and shapes) when the view, the image or the cached paths change, the overlay on
 * every state change. It reports on its root element for tests and the benchmark: data-ready (the image and
 * its shapes have been drawn), data-shapes, data-draw-ms (the last frame's drawing calls; the browser
 * rasterizes after them, so frame intervals, not this, show the full cost).
 */
export class CanvasRenderer {
  private root: HTMLElement | null = null;
  private layers: Layers | null = null;
  private editor: Editor | null = null;
  private unsubscribe: (() => void) | null = null;
  private source: CanvasImageSource | null = null;
  private tests: readonly TestResult[] | null = null;
  private look: ImageLook = { brightness: 100, contrast: 100 };
  private dpr = 1;
  private width = 0;
  private height = 0;
  private sizeVersion = 0;
  private frame = 0;
  private settle: ReturnType<typeof setTimeout> | null = null;
  private forceExact = false;
  private ready = false;
  private cursor = '';
  private colors: { labels: readonly LabelInfo[] | null; map: ReadonlyMap<number, string> } = { labels: null, map: new Map() };
  private readonly shapePaths = new ShapePathCache(() => new PathRecorder());
  private readonly testPaths = new TestPathCache(() => new PathRecorder());
  private readonly raster = new SceneRaster(() => this.invalidate());
  private drawn: Drawn = NOTHING_DRAWN;
  /** Which image is on screen, published as data-image for browser tests and the benchmark. */
  private sourceUrl: string | null = null;

  mount(root: HTMLElement, layers: Layers): void {
    this.root = root;
    this.layers = layers;
    this.drawn = NOTHING_DRAWN;
    root.dataset.ready = this.ready ? '1' : '0';
    this.invalidate();
  }

  unmount(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    if (this.settle) clearTimeout(this.settle);
    this.frame = 0;
    this.settle = null;
    this.root = null;
    this.layers = null;
  }

  setEditor(editor: Editor | null): void {
    this.unsubscribe?.();
    this.editor = editor;
    this.unsubscribe = editor ? editor.subscribe(() => this.invalidate()) : null;
    this.invalidate();
  }

  /** CSS size and device pixel ratio of the canvases. */
  setSize(width: number, height: number, dpr: number): void {
    if (!this.layers) return;
    this.dpr = dpr;
    this.width = width;
    this.height = height;
    for (const canvas of [this.layers.scene, this.layers.overlay]) {
      canvas.width = Math.max(1, Math.round(width * dpr));
      canvas.height = Math.max(1, Math.round(height * dpr));
    }
    this.sizeVersion++;
    this.invalidate();
  }

  /**
   * null while the next image loads: nothing (not the previous picture) is drawn under the new shapes. The
   * caller owns the bitmap (the decoded-image cache closes it) and takes it back with setImage(null) first.
   */
  setImage(source: CanvasImageSource | null, url: string | null = null): void {
    if (source === this.source && (source ? url : null) === this.sourceUrl) return;
    this.source = source;
    this.sourceUrl = source ? url : null;
    if (!source) this.setReady(false);
    this.invalidate();
  }

  setLook(look: ImageLook): void {
    this.look = look;
    this.invalidate();
  }

  setTestResults(results: readonly TestResult[] | null): void {
    this.tests = results;
    this.invalidate();
  }

  dispose(): void {
    this.unmount();
    this.setEditor(null);
    this.setImage(null);
    this.raster.clear();
  }

  private invalidate(): void {
    if (!this.frame && this.root) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    const { root, layers, editor } = this;
    if (!root || !layers || !editor) return;
    const t0 = performance.now();
    const state = editor.state;
    const v = state.viewport;
    const last = this.drawn;
    const resized = last.size !== this.sizeVersion;
    const moved = resized || v !== last.viewport;
    const shapes = this.shapePaths.get(state);
    const tests = this.testPaths.get(this.tests, state.labels);
    const filter = this.filterFor(layers.scene);
    const sceneChanged = this.source !== last.source || state.image !== last.image || filter !== last.filter || shapes !== last.shapes || tests !== last.tests;
    if (moved || sceneChanged || this.forceExact) {
      const ctx = context(layers.scene);
      if (this.width > 0 && this.height > 0) {
        const target = { ctx, width: this.width, height: this.height, dpr: this.dpr };
        const scene = { image: this.source, imageUrl: this.sourceUrl, size: state.image, filter, shapes, tests };
        const { exact } = this.raster.draw(target, v, scene, this.forceExact);
        setScreenTransform(ctx, this.dpr);
        drawTextTags(ctx, shapes.texts, v);
        if (tests) drawTextTags(ctx, tests.texts, v, true);
        this.scheduleSettle(!exact);
      } else clear(ctx);
      this.forceExact = false;
    }
    if (moved || state !== last.state) drawOverlayLayer(context(layers.overlay), state, this.colorsOf(state.labels), this.dpr);
    this.drawn = { state, viewport: v, image: state.image, source: this.source, filter, shapes, tests, size: this.sizeVersion };

    root.dataset.shapes = String(state.shapes.length);
    root.dataset.drawMs = (performance.now() - t0).toFixed(2);
    // The view transform (screen = image × scale + t), so browser tests can aim at image coordinates.
    root.dataset.view = `${v.scale},${v.tx},${v.ty}`;
    root.dataset.image = this.sourceUrl ?? '';
    if (this.source) this.setReady(true);
    const cursor = cursorFor(state);
    if (cursor !== this.cursor) root.style.cursor = this.cursor = cursor;
  }

  /** Brightness/contrast go into the cached scene; a browser without canvas filters gets a CSS filter instead. */
  private filterFor(scene: HTMLCanvasElement): string {
    const filter = cssFilter(this.look);
    if (canvasFilters(context(scene))) return filter;
    scene.style.filter = filter === 'none' ? '' : filter;
    return 'none';
  }

  private scheduleSettle(needed: boolean): void {
    if (this.settle) clearTimeout(this.settle);
    this.settle = needed
      ? setTimeout(() => {
          this.settle = null;
          this.forceExact = true;
          this.invalidate();
        }, SETTLE_MS)
      : null;
  }

  private setReady(ready: boolean): void {
    if (ready && !this.ready) perfMark('ready');
    this.ready = ready;
    if (this.root) this.root.dataset.ready = ready ? '1' : '0';
  }

  private colorsOf(labels: readonly LabelInfo[]): ReadonlyMap<number, string> {
    if (this.colors.labels !== labels) this.colors = { labels, map: colorMap(labels) };
    return this.colors.map;
  }
}
