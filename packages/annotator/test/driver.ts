import type { Geometry } from '@loupe/contracts';
import { Editor, imagePoint, screenPoint, type EditorOptions, type KeyInput, type Modifiers, type Notice, type Shape } from '../src/index.js';

export const LABELS = [
  { id: 1, name: 'scratch', color: '#ff0000' },
  { id: 2, name: 'dent', color: '#00ff00' },
  { id: 3, name: 'stain', color: '#0000ff' },
];

interface PointerOptions extends Modifiers {
  readonly button?: number;
}

/** KeyboardEvent.code for the keys tests press: letters, digits and named keys. */
function codeOf(key: string): string {
  if (/^[a-z]$/i.test(key)) return `Key${key.toUpperCase()}`;
  if (/^[0-9]$/.test(key)) return `Digit${key}`;
  return key === ' ' ? 'Space' : key;
}

/**
 * A chainable pointer/keyboard driver in screen coordinates (tldraw's test editor style). The default canvas
 * shows the 1000×800 image at zoom 1 with its top-left at the canvas origin, so screen and image coordinates
 * coincide unless a test zooms or pans.
 */
export class Driver {
  readonly editor: Editor;
  readonly notices: { notice: Notice; values?: Record<string, string | number> }[] = [];
  readonly navigations: (-1 | 1)[] = [];
  /** Listener calls with commit: true (what the page would save). */
  commits = 0;
  private last = { x: 0, y: 0 };

  constructor(options: Partial<EditorOptions> = {}) {
    this.editor = new Editor({
      image: { width: 1000, height: 800 },
      mode: 'detection',
      labels: LABELS,
      activeLabelId: 1,
      minArea: 4,
      ...options,
      host: {
        notice: (notice, values) => this.notices.push(values ? { notice, values } : { notice }),
        navigate: (direction) => this.navigations.push(direction),
      },
    });
    const { width, height } = this.editor.state.image;
    this.editor.setViewportSize(width + 32, height + 32);
    this.resetView();
    this.editor.subscribe((_, change) => {
      if (change.commit) this.commits++;
    });
  }

  /** Zoom 1 with the image's top-left at the canvas origin (screen = image), through user input only. */
  resetView(): this {
    const origin = this.editor.toScreen(imagePoint(0, 0));
    this.editor.zoomBy(1 / this.editor.state.viewport.scale, origin);
    return this.keyDown(' ').pointerDown(origin.x, origin.y).pointerMove(0, 0).pointerUp().keyUp(' ');
  }

  get state() {
    return this.editor.state;
  }

  get shapes(): readonly Shape[] {
    return this.editor.state.shapes;
  }

  /** Geometry of the shape with this id, or of the last shape. */
  geometry(id?: string): Geometry {
    const shapes = this.editor.state.shapes;
    const shape = id ? shapes.find((s) => s.id === id) : shapes[shapes.length - 1];
    if (!shape) throw new Error(`no shape ${id ?? '(last)'}`);
    return shape.geometry;
  }

  get selected(): string[] {
    return [...this.editor.state.selectedIds];
  }

  get noticeNames(): Notice[] {
    return this.notices.map((n) => n.notice);
  }

  pointerDown(x = this.last.x, y = this.last.y, o: PointerOptions = {}): this {
    this.last = { x, y };
    this.editor.pointerDown({ point: screenPoint(x, y), button: o.button ?? 0, ...o });
    return this;
  }

  pointerMove(x: number, y: number, o: PointerOptions = {}): this {
    this.last = { x, y };
    this.editor.pointerMove({ point: screenPoint(x, y), button: o.button ?? 0, ...o });
    return this;
  }

  pointerUp(x = this.last.x, y = this.last.y, o: PointerOptions = {}): this {
    this.last = { x, y };
    this.editor.pointerUp({ point: screenPoint(x, y), button: o.button ?? 0, ...o });
    return this;
  }

  click(x: number, y: number, o: PointerOptions = {}): this {
    return this.pointerDown(x, y, o).pointerUp(x, y, o);
  }

  /** What a browser sends for a double-click: two clicks, then dblclick. */
  doubleClick(x: number, y: number): this {
    this.click(x, y).click(x, y);
    this.editor.doubleClick({ point: screenPoint(x, y), button: 0 });
    return this;
  }

  /** Press, move in two steps (past any drag threshold), release. */
  drag(x1: number, y1: number, x2: number, y2: number, o: PointerOptions = {}): this {
    return this.pointerDown(x1, y1, o)
      .pointerMove((x1 + x2) / 2, (y1 + y2) / 2, o)
      .pointerMove(x2, y2, o)
      .pointerUp(x2, y2, o);
  }

  keyDown(key: string, o: Modifiers & { code?: string } = {}): this {
    this.editor.keyDown(this.key(key, o));
    return this;
  }

  keyUp(key: string, o: Modifiers & { code?: string } = {}): this {
    this.editor.keyUp(this.key(key, o));
    return this;
  }

  /** keyDown's answer (whether an action took the key). */
  handles(key: string, o: Modifiers & { code?: string } = {}): boolean {
    return this.editor.keyDown(this.key(key, o));
  }

  wheel(x: number, y: number, deltaY: number, ctrl = false): this {
    this.editor.wheel(screenPoint(x, y), deltaY, { ctrl });
    return this;
  }

  tool(id: Parameters<Editor['setTool']>[0]): this {
    this.editor.setTool(id);
    return this;
  }

  private key(key: string, o: Modifiers & { code?: string }): KeyInput {
    const { code, ...mods } = o;
    return { key, code: code ?? codeOf(key), ...mods };
  }
}

/** A shape list for tests: ids s1, s2, … in order. */
export function shapes(...geometries: Geometry[]): Shape[] {
  return geometries.map((geometry, i) => ({ id: `s${i + 1}`, labelId: 1, geometry }));
}

export const box = (x1: number, y1: number, x2: number, y2: number): Geometry => ({ kind: 'box', x1, y1, x2, y2 });
export const rbox = (cx: number, cy: number, w: number, h: number, angle: number): Geometry => ({ kind: 'rbox', cx, cy, w, h, angle });
export const polygon = (...points: [number, number][]): Geometry => ({ kind: 'polygon', points });
