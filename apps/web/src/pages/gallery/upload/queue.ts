/**
 * The upload queue behind every gallery wizard: files go out a few per request with limited concurrency,
 * each file reports its own progress, failed files can be retried and the end state is a summary of what the
 * server took and what it refused (with its reason). No React and no XMLHttpRequest here: the transport is
 * passed in, so the queue is tested with a fake one and the wizard uses the XHR transport.
 */

export type ItemStatus = 'waiting' | 'uploading' | 'done' | 'refused' | 'failed';

export interface UploadItem {
  id: number;
  name: string;
  size: number;
  /** Bytes of this file sent so far. */
  loaded: number;
  status: ItemStatus;
  /** The server's reason (refused) or the transport's error (failed), already in the user's language. */
  reason?: string;
}

/** What the server said about one file of a request. */
export type FileOutcome = { ok: true } | { ok: false; reason: string };

/**
 * Send one request. `onProgress(loaded)` reports bytes of the request body sent so far. Resolves with one
 * outcome per file (same order); rejects when the request as a whole failed (network, 5xx, refused batch).
 */
export type Transport = (
  files: readonly File[],
  onProgress: (loaded: number) => void,
  signal: AbortSignal,
) => Promise<FileOutcome[]>;

export interface QueueOptions {
  filesPerRequest: number;
  concurrency: number;
  /** A request also closes once its files reach this many bytes, so one huge file does not wait for others. */
  bytesPerRequest: number;
}

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = {
  filesPerRequest: 4,
  concurrency: 3,
  bytesPerRequest: 32 * 1024 * 1024,
};

export interface QueueSnapshot {
  items: readonly UploadItem[];
  running: boolean;
  totalBytes: number;
  loadedBytes: number;
  /** 0..100, by bytes. */
  percent: number;
  counts: Record<ItemStatus, number>;
}

export interface Summary {
  done: number;
  refused: { name: string; reason: string }[];
  failed: { name: string; reason: string }[];
}

type Listener = () => void;

export class UploadQueue {
  private items: UploadItem[] = [];
  private files = new Map<number, File>();
  private nextId = 1;
  private active = 0;
  private controller = new AbortController();
  private listeners = new Set<Listener>();
  private snapshot: QueueSnapshot;
  private idle: (() => void)[] = [];

  constructor(
    private readonly transport: Transport,
    private readonly options: QueueOptions = DEFAULT_QUEUE_OPTIONS,
  ) {
    this.snapshot = this.buildSnapshot();
  }

  add(files: readonly File[]): void {
    for (const file of files) {
      const id = this.nextId++;
      this.files.set(id, file);
      this.items.push({ id, name: displayName(file), size: file.size, loaded: 0, status: 'waiting' });
    }
    this.emit();
  }

  /** Start sending every waiting file; resolves when nothing is waiting or uploading any more. */
  start(): Promise<void> {
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.pump();
    return done;
  }

  /** Put failed files back in the queue and send them again (refused files stay refused: the server judged them). */
  retryFailed(): Promise<void> {
    this.items = this.items.map((item) =>
      item.status === 'failed' ? { ...item, status: 'waiting', loaded: 0, reason: undefined } : item,
    );
    this.emit();
    return this.start();
  }

  /** Stop: files not sent yet and requests in flight count as failed (with `reason`) and can be retried. */
  cancel(reason = ''): void {
    this.items = this.items.map((item) => (item.status === 'waiting' ? { ...item, status: 'failed', reason } : item));
    this.emit();
    this.controller.abort();
    this.controller = new AbortController();
  }

  clear(): void {
    this.cancel();
    this.items = [];
    this.files.clear();
    this.emit();
  }

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): QueueSnapshot => this.snapshot;

  summary(): Summary {
    const pick = (status: ItemStatus) =>
      this.items.filter((i) => i.status === status).map((i) => ({ name: i.name, reason: i.reason ?? '' }));
    return { done: this.snapshot.counts.done, refused: pick('refused'), failed: pick('failed') };
  }

  /** Names of files the server accepted (the annotation step matches annotations to these). */
  acceptedNames(): string[] {
    return this.items.filter((i) => i.status === 'done').map((i) => i.name);
  }

  private pump(): void {
    while (this.active < this.options.concurrency) {
      const batch = this.nextBatch();
      if (batch.length === 0) break;
      this.active++;
      void this.send(batch).finally(() => {
        this.active--;
        this.pump();
      });
    }
    if (this.active === 0 && !this.items.some((i) => i.status === 'waiting')) {
      const waiters = this.idle;
      this.idle = [];
      waiters.forEach((resolve) => resolve());
    }
  }

  private nextBatch(): number[] {
    const batch: number[] = [];
    let bytes = 0;
    for (const item of this.items) {
      if (item.status !== 'waiting') continue;
      if (batch.length > 0 && bytes + item.size > this.options.bytesPerRequest) break;
      batch.push(item.id);
      bytes += item.size;
      if (batch.length >= this.options.filesPerRequest) break;
    }
    this.update(batch, () => ({ status: 'uploading', loaded: 0 }));
    return batch;
  }

  private async send(ids: number[]): Promise<void> {
    const files = ids.map((id) => this.files.get(id)!);
    const sizes = files.map((f) => f.size);
    try {
      const outcomes = await this.transport(files, (loaded) => this.progress(ids, sizes, loaded), this.controller.signal);
      ids.forEach((id, index) => {
        const outcome = outcomes[index];
        this.update([id], (item) =>
          outcome?.ok
            ? { status: 'done', loaded: item.size, reason: undefined }
            : { status: 'refused', reason: outcome ? outcome.reason : '' },
        );
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.update(ids, () => ({ status: 'failed', loaded: 0, reason }));
    }
  }

  /** A multipart body carries its files in order, so the bytes sent so far fill the files one after another. */
  private progress(ids: number[], sizes: number[], loaded: number): void {
    let left = loaded;
    const perFile = sizes.map((size) => {
      const part = Math.max(0, Math.min(size, left));
      left -= size;
      return part;
    });
    this.items = this.items.slice();
    ids.forEach((id, index) => {
      const at = this.items.findIndex((item) => item.id === id);
      const item = this.items[at];
      if (item?.status === 'uploading') this.items[at] = { ...item, loaded: perFile[index]! };
    });
    this.emit();
  }

  private update(ids: number[], patch: (item: UploadItem) => Partial<UploadItem>): void {
    if (ids.length === 0) return;
    const set = new Set(ids);
    this.items = this.items.map((item) => (set.has(item.id) ? { ...item, ...patch(item) } : item));
    this.emit();
  }

  private buildSnapshot(): QueueSnapshot {
    const counts: Record<ItemStatus, number> = { waiting: 0, uploading: 0, done: 0, refused: 0, failed: 0 };
    let totalBytes = 0;
    let loadedBytes = 0;
    for (const item of this.items) {
      counts[item.status]++;
      totalBytes += item.size;
      // Refused and failed files are finished too: the bar reaches 100 % when nothing is left to send.
      loadedBytes += item.status === 'uploading' ? item.loaded : item.status === 'waiting' ? 0 : item.size;
    }
    const percent = totalBytes === 0 ? 0 : Math.floor((loadedBytes / totalBytes) * 100);
    return {
      items: this.items,
      running: counts.uploading > 0,
      totalBytes,
      loadedBytes,
      percent,
      counts,
    };
  }

  private emit(): void {
    this.snapshot = this.buildSnapshot();
    this.listeners.forEach((l) => l());
  }
}

/** Folder uploads show the path inside the folder so that two files of the same name stay apart. */
export function displayName(file: File): string {
  return file.webkitRelativePath || file.name;
}
