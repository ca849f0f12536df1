import type { Geometry } from '@loupe/contracts';
import type { Hit } from '../geometry/hit.js';
import type { Snapshot } from '../history.js';
import type { Draft, EditorState, Handle, ImagePoint, Notice, PointerInput, ScreenPoint, Shape, Viewport } from '../types.js';

/** A pointer event as tools see it: the screen point for thresholds, the (unclamped) image point for geometry. */
export interface ToolEvent {
  readonly screen: ScreenPoint;
  readonly point: ImagePoint;
  readonly input: PointerInput;
}

/**
 * What a tool state may do to the editor. Drags follow one pattern: `mark()` on enter, `preview()` while
 * moving (not saved, not in history), then `commit(mark)` on pointer-up or `restore(mark)` on Escape.
 */
export interface ToolContext {
  readonly state: EditorState;
  /** `px` screen pixels (default: the hit tolerance) in image pixels at the current zoom. */
  tolerance(px?: number): number;
  hitTest(screen: ScreenPoint): Hit | null;
  /** Shapes the user can see and therefore pick (hidden labels and "hide all" excluded). */
  visibleShapes(): readonly Shape[];
  clamp(p: ImagePoint): ImagePoint;
  transition(next: ToolState): void;
  setDraft(draft: Draft | null): void;
  setHover(shapeId: string | null, handle: Handle | null): void;
  setViewport(viewport: Viewport): void;
  select(ids: Iterable<string>): void;
  preview(shapes: Snapshot): void;
  mark(): Snapshot;
  restore(mark: Snapshot): void;
  /** Puts `mark` on the undo stack when the shapes changed since; true when they did. */
  commit(mark: Snapshot): boolean;
  /** Adds a finished drawing under the active label: clamped, dropped below the minimum area, then selected. */
  addDrawn(geometry: Geometry): boolean;
  /** False (with the selectLabelFirst notice) when no label is active: drawing must not start. */
  requireLabel(): boolean;
  notice(notice: Notice, values?: Record<string, string | number>): void;
}

/** One state of a tool's state machine (tldraw style: one class per file, the class carries the state's data). */
export interface ToolState {
  readonly name: string;
  /** An open polygon or a rotated box between clicks: switching image now would lose it. */
  readonly unfinished?: boolean;
  onEnter?(ctx: ToolContext): void;
  onPointerDown?(ctx: ToolContext, e: ToolEvent): void;
  onPointerMove?(ctx: ToolContext, e: ToolEvent): void;
  onPointerUp?(ctx: ToolContext, e: ToolEvent): void;
  onDoubleClick?(ctx: ToolContext, e: ToolEvent): void;
  /** Escape. True when something was cancelled (otherwise Escape goes on to clear the selection). */
  onCancel?(ctx: ToolContext): boolean;
  /** Enter. */
  onComplete?(ctx: ToolContext): boolean;
  /** Backspace while drawing: take back the last point. */
  onDeleteLast?(ctx: ToolContext): boolean;
}

/** Screen px a press must travel before it counts as a drag rather than a click. */
export const DRAG_THRESHOLD_PX = 3;

/** Unchanged geometry keeps the same shape object, so a no-op edit is not a change (see sameShapes). */
export function replaceShape(shapes: Snapshot, id: string, geometry: Geometry): Snapshot {
  return shapes.map((s) => (s.id === id && s.geometry !== geometry ? { ...s, geometry } : s));
}

export const findShape = (shapes: Snapshot, id: string) => shapes.find((s) => s.id === id);
