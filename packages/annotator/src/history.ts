import type { Shape } from './types.js';

export type Snapshot = readonly Shape[];

/** Enough for an afternoon on one image; snapshots share unchanged shape objects, so 200 cost little. */
export const HISTORY_LIMIT = 200;

/**
 * Undo/redo of whole shape snapshots. Shapes are immutable and every change copies only the shapes it touches,
 * so a snapshot is an array of references. Selection is not recorded: it is not saved, and an undo that
 * reselected would surprise more than help.
 */
export class History {
  private undoStack: Snapshot[] = [];
  private redoStack: Snapshot[] = [];

  constructor(private readonly limit = HISTORY_LIMIT) {}

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  get canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  /** Records `before` as the state to return to. Only a real change clears redo; selecting never calls this. */
  push(before: Snapshot): void {
    this.undoStack.push(before);
    if (this.undoStack.length > this.limit) this.undoStack.splice(0, this.undoStack.length - this.limit);
    this.redoStack = [];
  }

  /** Returns the snapshot to show, or null when there is nothing to undo. */
  undo(current: Snapshot): Snapshot | null {
    const previous = this.undoStack.pop();
    if (!previous) return null;
    this.redoStack.push(current);
    return previous;
  }

  redo(current: Snapshot): Snapshot | null {
    const next = this.redoStack.pop();
    if (!next) return null;
    this.undoStack.push(current);
    return next;
  }
}

/**
 * One history per image key, kept for the session: going to the next image and back still undoes what was done
 * there. Insertion order doubles as age, so the oldest images are forgotten first.
 */
export class HistoryStore {
  private readonly byImage = new Map<string, History>();

  constructor(
    private readonly maxImages = 500,
    private readonly limit = HISTORY_LIMIT,
  ) {}

  get(imageKey: string): History {
    let history = this.byImage.get(imageKey);
    if (history) {
      this.byImage.delete(imageKey);
    } else {
      history = new History(this.limit);
    }
    this.byImage.set(imageKey, history);
    if (this.byImage.size > this.maxImages) this.byImage.delete(this.byImage.keys().next().value!);
    return history;
  }

  reset(imageKey: string): History {
    this.byImage.delete(imageKey);
    return this.get(imageKey);
  }
}
