import type { RasterPlan } from '../layers/rasterPlan';
import type { FromWorker, ToWorker, ContentMessage } from './protocol';

type Waiter = { resolve: (bitmap: ImageBitmap) => void; reject: (error: Error) => void };

/**
 * The page's handle on the scene worker (sceneWorker.ts): one worker for the app, started on first use. Every
 * call answers a promise; once the worker has failed (it could not start, or threw), everything rejects and
 * the callers draw and decode on the page as before.
 */
export class SceneWorkerClient {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiter>();
  private next = 1;
  broken = false;

  constructor() {
    this.worker = new Worker(new URL('./sceneWorker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const m = event.data;
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.type === 'done') {
        if (waiter) waiter.resolve(m.bitmap);
        else m.bitmap.close();
      } else waiter?.reject(new Error(m.message));
    };
    this.worker.onerror = () => this.fail();
    this.worker.onmessageerror = () => this.fail();
  }

  /** Fetches and decodes `url` in the worker; the worker keeps a copy for its renders. */
  decode(url: string): Promise<ImageBitmap> {
    return this.call((id) => ({ type: 'decode', id, url: absolute(url) }));
  }

  forget(url: string): void {
    this.post({ type: 'forget', url: absolute(url) });
  }

  /** The content later renders name by contentId; its path arrays are transferred, not copied. */
  setContent(content: Omit<ContentMessage, 'type' | 'imageUrl'> & { imageUrl: string | null }): void {
    const buffers = [...content.shapes.data, ...(content.tests?.data ?? [])].map((d) => d.buffer);
    this.post({ type: 'content', ...content, imageUrl: content.imageUrl && absolute(content.imageUrl) }, buffers);
  }

  render(owner: number, contentId: number, plan: RasterPlan): Promise<ImageBitmap> {
    return this.call((id) => ({ type: 'render', id, owner, contentId, plan }));
  }

  release(owner: number): void {
    this.post({ type: 'release', owner });
  }

  private call(message: (id: number) => ToWorker): Promise<ImageBitmap> {
    if (this.broken) return Promise.reject(new Error('scene worker unavailable'));
    const id = this.next++;
    return new Promise<ImageBitmap>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.post(message(id));
    });
  }

  private post(message: ToWorker, transfer: Transferable[] = []): void {
    if (this.broken) return;
    try {
      this.worker.postMessage(message, transfer);
    } catch {
      this.fail();
    }
  }

  private fail(): void {
    this.broken = true;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('scene worker failed'));
    this.waiting.clear();
    this.worker.terminate();
  }
}

/** The worker resolves relative URLs against its own script, not the page. */
const absolute = (url: string) => new URL(url, location.href).href;

let shared: SceneWorkerClient | null | undefined;

/** The app's scene worker, or null where workers cannot draw (no OffscreenCanvas, jsdom): draw on the page. */
export function sceneWorker(): SceneWorkerClient | null {
  if (shared === undefined) {
    const supported =
      typeof Worker === 'function' && typeof OffscreenCanvas === 'function' && typeof createImageBitmap === 'function' && 'transferToImageBitmap' in OffscreenCanvas.prototype;
    try {
      shared = supported ? new SceneWorkerClient() : null;
    } catch {
      shared = null;
    }
  }
  return shared && !shared.broken ? shared : null;
}
