import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { ActionManager, allActions } from './actions/index.js';
import { Clipboard } from './clipboard.js';
import { clampPoint, clampToImage, type ImageSize } from './geometry/clamp.js';
import { HIT_TOLERANCE_PX, handlesOf, hitTest, type Hit } from './geometry/hit.js';
import { area } from './geometry/shape.js';
import { fitViewport, resizeViewport, zoomAround } from './geometry/viewport.js';
import type { Snapshot } from './history.js';
import { EditorCore } from './editorCore.js';
import type { EditorOptions } from './editorState.js';
import { prepareShapes } from './shapes.js';
import { idleState, PanGesture, type ToolContext, type ToolEvent, type ToolState } from './tools/index.js';
import {
  screenPoint,
  TOOLS_BY_MODE,
  type EditorHost,
  type EditorLike,
  type Handle,
  type KeyInput,
  type LabelInfo,
  type Modifiers,
  type PointerInput,
  type ScreenPoint,
  type Shape,
  type ToolId,
} from './types.js';

export type { EditorListener } from './editorCore.js';

/** Wheel px per doubling of the zoom: a mouse notch (100 px) zooms ~19 %, a trackpad pinch (ctrl) faster. */
const WHEEL_PX_PER_DOUBLING = 400;
const PINCH_PX_PER_DOUBLING = 100;

/**
 * The headless labeling editor. Input arrives in screen coordinates; `state` is a new immutable snapshot after
 * every change, and listeners hear once per input event (changes inside one event are batched). Tools are
 * state machines (src/tools) that act on the editor through the ToolContext built at the bottom.
 */
export class Editor extends EditorCore implements EditorLike {
  readonly host: EditorHost;
  readonly actions = new ActionManager(allActions);
  private tool: ToolState;
  private pan: PanGesture | null = null;
  private spaceHeld = false;
  private readonly clipboard = new Clipboard();
  private readonly ctx: ToolContext;

  constructor(options: EditorOptions) {
    super(options);
    this.host = options.host ?? {};
    this.tool = idleState[this.current.tool]();
    this.ctx = this.toolContext();
  }

  // --- input (screen coordinates) ---

  pointerDown(input: PointerInput): void {
    this.batch(() => {
      if (input.button === 1 || (input.button === 0 && this.spaceHeld)) {
        this.pan = new PanGesture(input.point, this.current.viewport);
        this.update({ panning: true });
      } else if (input.button === 0) this.tool.onPointerDown?.(this.ctx, this.event(input));
    });
  }

  pointerMove(input: PointerInput): void {
    this.batch(() => {
      if (this.pan) this.update({ viewport: this.pan.viewportAt(input.point, this.current.viewport) });
      else this.tool.onPointerMove?.(this.ctx, this.event(input));
    });
  }

  pointerUp(input: PointerInput): void {
    this.batch(() => {
      if (this.pan) {
        this.pan = null;
        this.update({ panning: this.spaceHeld });
      } else if (input.button === 0) this.tool.onPointerUp?.(this.ctx, this.event(input));
    });
  }

  doubleClick(input: PointerInput): void {
    if (input.button === 0 && !this.pan) this.batch(() => this.tool.onDoubleClick?.(this.ctx, this.event(input)));
  }

  /** Zooms around the cursor; `ctrl` marks a trackpad pinch, whose deltas are small. */
  wheel(point: ScreenPoint, deltaY: number, modifiers: Modifiers = {}): void {
    const perDoubling = modifiers.ctrl ? PINCH_PX_PER_DOUBLING : WHEEL_PX_PER_DOUBLING;
    this.zoomBy(2 ** (-Math.max(-200, Math.min(200, deltaY)) / perDoubling), point);
  }

  /** Runs the matching action; true when the key was handled (the host then prevents its default). */
  keyDown(key: KeyInput): boolean {
    if (key.code === 'Space' || key.key === ' ') {
      if (!this.spaceHeld) {
        this.spaceHeld = true;
        this.batch(() => this.update({ panning: true }));
      }
      return true;
    }
    let handled = false;
    this.batch(() => (handled = this.actions.handleKey(this, key)));
    return handled;
  }

  keyUp(key: KeyInput): void {
    if (key.code !== 'Space' && key.key !== ' ') return;
    this.spaceHeld = false;
    // Spaces typed into a field also arrive here: no state change unless a pan was on.
    if (!this.pan && this.current.panning) this.batch(() => this.update({ panning: false }));
  }

  runAction(name: string): boolean {
    let done = false;
    this.batch(() => (done = this.actions.run(this, name)));
    return done;
  }

  // --- commands ---

  setTool(tool: ToolId): boolean {
    if (!TOOLS_BY_MODE[this.current.mode].includes(tool)) return false;
    this.batch(() => {
      this.tool.onCancel?.(this.ctx);
      this.update({ tool, draft: null, hover: { shapeId: null, handle: null } });
      this.transition(idleState[tool]());
    });
    return true;
  }

  setActiveLabel(labelId: number | null): void {
    if (labelId !== null && !this.current.labels.some((l) => l.id === labelId)) return;
    if (labelId !== this.current.activeLabelId) this.batch(() => this.update({ activeLabelId: labelId }));
  }

  setLabels(labels: readonly LabelInfo[]): void {
    const active = this.current.activeLabelId;
    this.batch(() => this.update({ labels, activeLabelId: labels.some((l) => l.id === active) ? active : null }));
  }

  setViewportSize(width: number, height: number): void {
    const v = this.current.viewport;
    if (width === v.width && height === v.height) return;
    const resized = resizeViewport(v, width, height);
    // The first real size is when a fit becomes possible; later resizes keep the user's zoom.
    const first = v.width <= 0 || v.height <= 0;
    this.batch(() => this.update({ viewport: first ? fitViewport(resized, this.current.image) : resized }));
  }

  fit(): void {
    this.batch(() => this.update({ viewport: fitViewport(this.current.viewport, this.current.image) }));
  }

  zoomBy(factor: number, around?: ScreenPoint): void {
    const v = this.current.viewport;
    const at = around ?? screenPoint(v.width / 2, v.height / 2);
    this.batch(() => this.update({ viewport: zoomAround(v, factor, at) }));
  }

  undo(): boolean {
    return this.travel((current) => this.history.undo(current));
  }

  redo(): boolean {
    return this.travel((current) => this.history.redo(current));
  }

  deleteSelected(): boolean {
    const ids = this.current.selectedIds;
    if (ids.size === 0) return false;
    return this.change(this.current.shapes.filter((s) => !ids.has(s.id)));
  }

  copy(): boolean {
    const ids = this.current.selectedIds;
    return this.clipboard.copy(this.current.shapes.filter((s) => ids.has(s.id)));
  }

  /** Pastes 10 px down-right of the copied shapes, inside the image; the pasted shapes become the selection. */
  paste(): boolean {
    if (this.clipboard.empty) {
      this.host.notice?.('nothingToPaste');
      return false;
    }
    const pasted = this.clipboard.paste(this.current.image, this.current.minArea, () => this.ids.next());
    if (pasted.length === 0) {
      this.host.notice?.('tooSmall', { minArea: this.current.minArea });
      return false;
    }
    this.batch(() => {
      this.change([...this.current.shapes, ...pasted]);
      this.select(pasted.map((s) => s.id));
    });
    return true;
  }

  selectAll(): void {
    this.select(this.visibleShapes().map((s) => s.id));
  }

  clearSelection(): void {
    this.select([]);
  }

  setLabelOfSelection(labelId: number): boolean {
    const ids = this.current.selectedIds;
    if (!this.current.labels.some((l) => l.id === labelId)) return false;
    return this.change(this.current.shapes.map((s) => (ids.has(s.id) && s.labelId !== labelId ? { ...s, labelId } : s)));
  }

  /** OCR text of one shape; an empty text removes it. */
  setText(shapeId: string, text: string): boolean {
    const value = text.slice(0, LabelingLimits.ocrTextMax);
    return this.change(
      this.current.shapes.map((s) => {
        if (s.id !== shapeId || (s.geometry.text ?? '') === value) return s;
        const { text: _old, ...rest } = s.geometry;
        return { ...s, geometry: (value ? { ...rest, text: value } : rest) as Geometry };
      }),
    );
  }

  toggleShapesHidden(): void {
    const hidden = !this.current.shapesHidden;
    this.batch(() => {
      this.update({ shapesHidden: hidden, hover: { shapeId: null, handle: null } });
      this.select(this.current.selectedIds);
    });
  }

  toggleLabelHidden(labelId: number): void {
    const next = new Set(this.current.hiddenLabelIds);
    if (!next.delete(labelId)) next.add(labelId);
    this.batch(() => {
      this.update({ hiddenLabelIds: next, hover: { shapeId: null, handle: null } });
      this.select(this.current.selectedIds);
    });
  }

  setMinArea(px2: number): void {
    const minArea = Math.max(0, Number.isFinite(px2) ? px2 : 0);
    if (minArea !== this.current.minArea) this.batch(() => this.update({ minArea }));
  }

  /** Switches image. Each image key keeps its own undo/redo for the session. */
  load(imageKey: string, image: ImageSize, shapes: readonly Shape[]): void {
    this.batch(() => {
      this.abortGesture();
      this.imageKey = imageKey;
      this.history = this.histories.get(imageKey);
      const size = { width: image.width, height: image.height };
      this.update({
        image: size,
        shapes: prepareShapes(shapes, size, this.ids),
        selectedIds: new Set(),
        hover: { shapeId: null, handle: null },
        viewport: fitViewport(this.current.viewport, size),
      });
    });
  }

  /** The server's set replaces ours (after a conflict): this image's history no longer applies. */
  replaceShapes(shapes: readonly Shape[]): void {
    this.batch(() => {
      this.abortGesture();
      this.history = this.histories.reset(this.imageKey);
      this.update({ shapes: prepareShapes(shapes, this.current.image, this.ids) });
    });
  }

  hasUnfinishedDrawing(): boolean {
    return this.tool.unfinished === true;
  }

  /** Cancels a drawing or a drag; false when there was none. */
  cancelDrawing(): boolean {
    if (this.tool.name === 'idle') return false;
    let done = false;
    this.batch(() => (done = this.tool.onCancel?.(this.ctx) ?? false));
    return done;
  }

  /** Closes the polygon being drawn (Enter). */
  finishDrawing(): boolean {
    let done = false;
    this.batch(() => (done = this.tool.onComplete?.(this.ctx) ?? false));
    return done;
  }

  /** Takes back the last point of the drawing (Backspace). */
  removeLastPoint(): boolean {
    let done = false;
    this.batch(() => (done = this.tool.onDeleteLast?.(this.ctx) ?? false));
    return done;
  }

  /** Handles of the single selected shape (select tool only), then the topmost visible shape. */
  hitTest(point: ScreenPoint): Hit | null {
    const { selectedIds, viewport, tool, shapes } = this.current;
    const visible = this.visibleShapes();
    let handles: Handle[] = [];
    if (tool === 'select' && selectedIds.size === 1) {
      const [id] = selectedIds;
      const shape = shapes.find((s) => s.id === id);
      if (shape) handles = handlesOf(shape, viewport.scale);
    }
    return hitTest(visible, this.toImage(point), HIT_TOLERANCE_PX / viewport.scale, handles);
  }

  // --- internals ---

  private event(input: PointerInput): ToolEvent {
    return { screen: input.point, point: this.toImage(input.point), input };
  }

  private transition(next: ToolState): void {
    this.tool = next;
    this.update({ toolState: next.name });
    next.onEnter?.(this.ctx);
  }

  /** Ends whatever gesture runs, restoring a drag, so a switch of image never commits half an edit. */
  private abortGesture(): void {
    this.pan = null;
    if (this.tool.name !== 'idle') this.tool.onCancel?.(this.ctx);
    if (this.tool.name !== 'idle') this.transition(idleState[this.current.tool]());
    this.update({ draft: null, panning: this.spaceHeld });
  }

  /** Undo or redo; a point being drawn is taken back first, and a running drag is abandoned. */
  private travel(step: (current: Snapshot) => Snapshot | null): boolean {
    let done = false;
    this.batch(() => {
      if (this.tool.unfinished) {
        done = this.tool.onDeleteLast?.(this.ctx) ?? this.tool.onCancel?.(this.ctx) ?? false;
        return;
      }
      this.abortGesture();
      const shapes = step(this.current.shapes);
      if (!shapes) return;
      this.update({ shapes }, true);
      done = true;
    });
    return done;
  }

  private addDrawn(geometry: Geometry): boolean {
    const labelId = this.current.activeLabelId;
    if (labelId === null) return false;
    const g = clampToImage(geometry, this.current.image);
    const a = area(g);
    if (a <= 0 || a < this.current.minArea) {
      this.host.notice?.('tooSmall', { minArea: this.current.minArea });
      return false;
    }
    const shape: Shape = { id: this.ids.next(), labelId, geometry: g };
    this.change([...this.current.shapes, shape]);
    this.select([shape.id]);
    return true;
  }

  private toolContext(): ToolContext {
    // A getter, not a copy: tools must read the state as it is after their own updates.
    const live = () => this.current;
    return {
      get state() {
        return live();
      },
      tolerance: (px = HIT_TOLERANCE_PX) => px / this.current.viewport.scale,
      hitTest: (p) => this.hitTest(p),
      visibleShapes: () => this.visibleShapes(),
      clamp: (p) => clampPoint(p, this.current.image),
      transition: (next) => this.transition(next),
      setDraft: (draft) => this.update({ draft }),
      setHover: (shapeId, handle) => {
        const h = this.current.hover;
        if (h.shapeId !== shapeId || !sameHandle(h.handle, handle)) this.update({ hover: { shapeId, handle } });
      },
      setViewport: (viewport) => this.update({ viewport }),
      select: (ids) => this.select(ids),
      preview: (shapes) => this.update({ shapes }),
      mark: () => this.current.shapes,
      restore: (mark) => this.update({ shapes: mark }),
      commit: (mark) => this.commitFrom(mark),
      addDrawn: (g) => this.addDrawn(g),
      requireLabel: () => {
        if (this.current.activeLabelId !== null) return true;
        this.host.notice?.('selectLabelFirst');
        return false;
      },
      notice: (n, values) => this.host.notice?.(n, values),
    };
  }
}

/** Hit testing builds new handle objects on every move; hover changes only when the handle itself does. */
function sameHandle(a: Handle | null, b: Handle | null): boolean {
  return a === b || (!!a && !!b && a.shapeId === b.shapeId && a.kind === b.kind && a.index === b.index && a.at.x === b.at.x && a.at.y === b.at.y);
}
