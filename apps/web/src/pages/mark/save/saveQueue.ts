/** What the page shows next to the toolbar (test id mark-save-status, data-status). */
export type SaveStatus = 'saved' | 'saving' | 'failed';

export interface SaveQueueOptions<T> {
  /** The version the image's annotations were loaded at. */
  baseVersion: number;
  /** Quiet time after the last change before it is sent. */
  delayMs?: number;
  /** Send `payload` on top of `baseVersion`; resolves with the version the server now holds. */
  send(payload: T, baseVersion: number): Promise<number>;
  isConflict(error: unknown): boolean;
  /**
   * Someone else saved first: the host shows the message, puts the server's set into the editor and resolves
   * with its version. Whatever was queued meanwhile is dropped, since the reload replaced it.
   */
  reload(error: unknown): Promise<number>;
  onStatus?(status: SaveStatus): void;
  /** A save that failed for another reason (network, refusal): the status offers a retry. */
  onError?(error: unknown): void;
}

export const SAVE_DELAY_MS = 300;

/**
 * Autosave of one image's annotation set. Changes are coalesced (debounced), at most one request travels at a
 * time, and only the latest state is ever sent after it: a whole set replaces the previous one, so the sets in
 * between are worthless. Every save carries the version the previous one answered (optimistic concurrency).
 */
export class SaveQueue<T> {
  private readonly options: SaveQueueOptions<T>;
  private base: number;
  private pending: { payload: T } | null = null;
  /** Kept after a non-conflict failure so that retry or flush can send it again. */
  private failed: { payload: T } | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;
  private current: SaveStatus = 'saved';
  private disposed = false;

  constructor(options: SaveQueueOptions<T>) {
    this.options = options;
    this.base = options.baseVersion;
  }

  get status(): SaveStatus {
    return this.current;
  }

  get baseVersion(): number {
    return this.base;
  }

  /** True while something is not on the server yet (the page asks before unload). */
  get dirty(): boolean {
    return this.pending !== null || this.inFlight !== null || this.failed !== null;
  }

  /** A committed change: its full state replaces whatever was queued before it. */
  schedule(payload: T): void {
    if (this.disposed) return;
    this.pending = { payload };
    this.failed = null;
    this.clearTimer();
    this.timer = setTimeout(() => this.fire(), this.options.delayMs ?? SAVE_DELAY_MS);
    this.update();
  }

  /** Send the failed state again now (the status's retry button). */
  retry(): void {
    if (!this.failed || this.pending) return;
    this.pending = this.failed;
    this.failed = null;
    this.clearTimer();
    this.fire();
  }

  /**
   * Send what is queued now and wait until nothing is pending or travelling (image switch, leaving the page,
   * before a server-side change such as converting test results). A failed state is tried once more.
   * Resolves true when everything reached the server.
   */
  async flush(): Promise<boolean> {
    if (this.failed && !this.pending) this.pending = this.failed;
    this.failed = null;
    this.clearTimer();
    for (;;) {
      if (this.inFlight) await this.inFlight;
      else if (this.pending) this.fire();
      else break;
    }
    return this.failed === null;
  }

  /** Another server-side change (convert test results) moved the version on. */
  setBaseVersion(version: number): void {
    this.base = version;
  }

  /** Stop timers; the page flushes first. A request already travelling still completes. */
  dispose(): void {
    this.disposed = true;
    this.clearTimer();
  }

  private clearTimer() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private fire() {
    this.timer = null;
    if (this.inFlight || !this.pending) return;
    const { payload } = this.pending;
    this.pending = null;
    this.inFlight = this.sendOne(payload).finally(() => {
      this.inFlight = null;
      // Changes made while the request travelled go as soon as their debounce is over, or now if it already is.
      if (this.pending && this.timer === null && !this.disposed) this.fire();
      this.update();
    });
    this.update();
  }

  private async sendOne(payload: T) {
    try {
      this.base = await this.options.send(payload, this.base);
    } catch (error) {
      if (this.options.isConflict(error)) {
        await this.reloadAfterConflict(error, payload);
        return;
      }
      // A newer state is already queued: it supersedes the failed one and will be tried next.
      if (!this.pending) this.failed = { payload };
      this.options.onError?.(error);
    }
  }

  private async reloadAfterConflict(error: unknown, payload: T) {
    try {
      this.base = await this.options.reload(error);
      this.pending = null;
      this.clearTimer();
    } catch (reloadError) {
      // The editor still holds the user's set. A retry sends it on the old base again, which conflicts again
      // and so tries the reload again: the user never silently loses the set.
      if (!this.pending) this.failed = { payload };
      this.options.onError?.(reloadError);
    }
  }

  private update() {
    const next: SaveStatus = this.pending || this.inFlight ? 'saving' : this.failed ? 'failed' : 'saved';
    if (next === this.current) return;
    this.current = next;
    this.options.onStatus?.(next);
  }
}
