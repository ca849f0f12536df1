import { toImage, toScreen } from './geometry/viewport.js';
import { HistoryStore, type History, type Snapshot } from './history.js';
import { initialState, type EditorOptions } from './editorState.js';
import { IdSource, prepareShapes, sameShapes } from './shapes.js';
import type { ChangeInfo, EditorState, ImagePoint, ScreenPoint } from './types.js';

export type EditorListener = (state: EditorState, change: ChangeInfo) => void;

/**
 * The editor's state keeping: one immutable snapshot replaced on every change, listeners notified once per
 * batch (one input event or command), and the history that `change` and `commitFrom` write to. Input handling
 * and commands live in Editor (editor.ts), which extends this.
 */
export class EditorCore {
  protected current: EditorState;
  protected readonly histories = new HistoryStore();
  protected history: History;
  protected imageKey: string;
  protected readonly ids = new IdSource();
  private readonly listeners = new Set<EditorListener>();
  private batchDepth = 0;
  private pending: ChangeInfo | null = null;
  private visibleCache: { shapes: Snapshot; hidden: ReadonlySet<number>; all: boolean; visible: Snapshot } | null = null;

  constructor(options: EditorOptions) {
    this.imageKey = options.imageKey ?? '';
    this.history = this.histories.get(this.imageKey);
    this.current = initialState(options, prepareShapes(options.shapes ?? [], options.image, this.ids));
  }

  get state(): EditorState {
    return this.current;
  }

  subscribe(listener: EditorListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  select(ids: Iterable<string>): void {
    const visible = new Set(this.visibleShapes().map((s) => s.id));
    const next = new Set([...ids].filter((id) => visible.has(id)));
    const prev = this.current.selectedIds;
    if (next.size === prev.size && [...next].every((id) => prev.has(id))) return;
    this.batch(() => this.update({ selectedIds: next }));
  }

  /** Shapes not hidden by label or by "hide all", in drawing order (cached per shapes/hidden change). */
  visibleShapes(): Snapshot {
    const { shapes, hiddenLabelIds, shapesHidden } = this.current;
    const c = this.visibleCache;
    if (c && c.shapes === shapes && c.hidden === hiddenLabelIds && c.all === shapesHidden) return c.visible;
    const visible = shapesHidden ? [] : hiddenLabelIds.size === 0 ? shapes : shapes.filter((s) => !hiddenLabelIds.has(s.labelId));
    this.visibleCache = { shapes, hidden: hiddenLabelIds, all: shapesHidden, visible };
    return visible;
  }

  toImage(p: ScreenPoint): ImagePoint {
    return toImage(this.current.viewport, p);
  }

  toScreen(p: ImagePoint): ScreenPoint {
    return toScreen(this.current.viewport, p);
  }

  /** A one-step command: records the current shapes for undo and applies `shapes`. */
  protected change(shapes: Snapshot): boolean {
    const before = this.current.shapes;
    if (sameShapes(before, shapes)) return false;
    this.history.push(before);
    this.batch(() => this.update({ shapes }, true));
    return true;
  }

  protected commitFrom(mark: Snapshot): boolean {
    if (sameShapes(mark, this.current.shapes)) {
      if (mark !== this.current.shapes) this.update({ shapes: mark });
      return false;
    }
    this.history.push(mark);
    this.update({}, true);
    return true;
  }

  protected update(patch: Partial<EditorState>, commit = false): void {
    const prev = this.current;
    const shapesChanged = patch.shapes !== undefined && patch.shapes !== prev.shapes;
    let selectedIds = patch.selectedIds ?? prev.selectedIds;
    if (shapesChanged && selectedIds.size > 0) {
      const present = new Set(patch.shapes!.map((s) => s.id));
      if ([...selectedIds].some((id) => !present.has(id))) selectedIds = new Set([...selectedIds].filter((id) => present.has(id)));
    }
    this.current = {
      ...prev,
      ...patch,
      selectedIds,
      canUndo: this.history.canUndo,
      canRedo: this.history.canRedo,
      shapesRevision: shapesChanged ? prev.shapesRevision + 1 : prev.shapesRevision,
    };
    this.pending = { commit: commit || (this.pending?.commit ?? false) };
    if (this.batchDepth === 0) this.flush();
  }

  /** Runs `fn` and notifies listeners once at the end, with commit set if any step committed. */
  protected batch(fn: () => void): void {
    this.batchDepth++;
    try {
      fn();
    } finally {
      this.batchDepth--;
    }
    if (this.batchDepth === 0) this.flush();
  }

  private flush(): void {
    const change = this.pending;
    if (!change) return;
    this.pending = null;
    for (const listener of [...this.listeners]) listener(this.current, change);
  }
}
