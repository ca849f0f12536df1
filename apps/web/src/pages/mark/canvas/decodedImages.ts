import { perfMark } from '../shared/perfMarks';
import { sceneWorker } from './worker/sceneWorkerClient';

export type DecodedImage = ImageBitmap | HTMLImageElement;

interface Entry {
  readonly promise: Promise<DecodedImage>;
  source: DecodedImage | null;
  /** Canvases showing it: a held image is never evicted (and closed) under them. */
  holds: number;
}

/** The open image, the one being switched away from and the two neighbours. */
const CAPACITY = 4;

/**
 * Decoded images by URL, shared by the page (which starts decoding an image as soon as it is chosen, in parallel
 * with its annotations, and prefetches the neighbours) and the canvas (which draws it). A 2048×1536 photo takes
 * ~150 ms to fetch and decode, the largest part of an image switch; decoded in advance, the switch skips it.
 * Entries beyond the capacity are evicted oldest first and their bitmaps closed (12 MB each), never a held one.
 */
export class DecodedImages {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = CAPACITY) {}

  /** Starts fetching and decoding `url` unless it is cached or on its way; resolves with the decoded image. */
  load(url: string): Promise<DecodedImage> {
    const known = this.entries.get(url);
    if (known) {
      // Most recently used last: eviction takes the first.
      this.entries.delete(url);
      this.entries.set(url, known);
      return known.promise;
    }
    const entry: Entry = {
      promise: decode(url).then(
        (source) => {
          if (this.entries.get(url) === entry) entry.source = source;
          else close(source);
          return source;
        },
        (error: unknown) => {
          // A failed image is fetched again the next time it is asked for.
          if (this.entries.get(url) === entry) this.entries.delete(url);
          throw error;
        },
      ),
      source: null,
      holds: 0,
    };
    // Prefetches nobody waits for must not report unhandled rejections.
    entry.promise.catch(() => undefined);
    this.entries.set(url, entry);
    this.trim();
    return entry.promise;
  }

  /** The decoded image when it is ready now, so a prefetched image is drawn in the same frame as its shapes. */
  peek(url: string): DecodedImage | null {
    return this.entries.get(url)?.source ?? null;
  }

  /** Loads `url` and keeps it from eviction until the returned release is called. */
  hold(url: string): { promise: Promise<DecodedImage>; release: () => void } {
    const promise = this.load(url);
    const entry = this.entries.get(url)!;
    entry.holds++;
    let released = false;
    return {
      promise,
      release: () => {
        if (released) return;
        released = true;
        entry.holds--;
        this.trim();
      },
    };
  }

  dispose(): void {
    const worker = sceneWorker();
    for (const [url, entry] of this.entries) {
      if (entry.source) close(entry.source);
      worker?.forget(url);
    }
    this.entries.clear();
  }

  private trim(): void {
    for (const [url, entry] of this.entries) {
      if (this.entries.size <= this.capacity) return;
      if (entry.holds > 0) continue;
      this.entries.delete(url);
      if (entry.source) close(entry.source);
      sceneWorker()?.forget(url);
    }
  }
}

const close = (source: DecodedImage) => {
  if (typeof ImageBitmap !== 'undefined' && source instanceof ImageBitmap) source.close();
};

/**
 * Decoded in the scene worker when there is one: the fetch's continuation and the decode then never wait for a
 * busy page (an image switch keeps it busy ~150 ms), and the worker keeps the image for its renders. Else fetch
 * + createImageBitmap decodes on a background thread straight into a bitmap the browser cannot evict and
 * re-decode in the middle of a pan (an <img> decode plus createImageBitmap(img) costs ~40 ms more on the page).
 * Browsers without createImageBitmap (and jsdom) get the element.
 */
async function decode(url: string): Promise<DecodedImage> {
  const worker = sceneWorker();
  if (worker) {
    try {
      perfMark('image:fetch');
      const bitmap = await worker.decode(url);
      perfMark('image:bitmap');
      return bitmap;
    } catch (error) {
      // A missing image is missing on the page too; only a worker that has stopped is worked around.
      if (!worker.broken) throw error;
    }
  }
  if (typeof createImageBitmap === 'function' && typeof fetch === 'function') {
    perfMark('image:fetch');
    const res = await fetch(url);
    if (!res.ok) throw new Error(`image ${res.status}`);
    const blob = await res.blob();
    perfMark('image:bytes');
    const bitmap = await createImageBitmap(blob, { imageOrientation: 'from-image' });
    perfMark('image:bitmap');
    return bitmap;
  }
  const img = new Image();
  img.decoding = 'async';
  img.src = url;
  if (typeof img.decode === 'function') await img.decode();
  return img;
}

/** Natural size of a decoded image. */
export const sizeOf = (source: DecodedImage) =>
  'naturalWidth' in source ? { width: source.naturalWidth, height: source.naturalHeight } : { width: source.width, height: source.height };
