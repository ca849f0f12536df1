import type { ImageAnnotationsData } from '@loupe/contracts';

/**
 * A prefetched set older than this when its image opens is checked against the server right after the open.
 * Younger, it is as fresh as a set the user has looked at for a few seconds, which the page never re-checks
 * either; a change made elsewhere meanwhile surfaces as a save conflict, as it always has.
 */
export const PREFETCH_FRESH_MS = 5_000;

/** localStorage switch for measuring a cold image switch (bench/annotator.mjs BENCH_ANNOTATOR_PREFETCH=off). */
export const PREFETCH_SWITCH_KEY = 'loupe.mark.prefetch';

export function prefetchEnabled(): boolean {
  try {
    return localStorage.getItem(PREFETCH_SWITCH_KEY) !== 'off';
  } catch {
    return true;
  }
}

export interface Prefetched {
  readonly promise: Promise<ImageAnnotationsData>;
  /** When the request was sent (Date.now(): wall time is what makes a set stale). */
  readonly startedAt: number;
}

/**
 * Annotation sets fetched ahead of the session: the neighbours', while the user works on the open image, so
 * that the next image opens without waiting for its request (~150 ms for 2,000 polygons), and the one a step
 * goes to, from the click on (before the page has re-rendered for it). An entry is dropped once its image is
 * loaded (the session owns the set from then on), when it is no longer a neighbour, and when this page saves it.
 */
export class AnnotationPrefetch {
  private readonly entries = new Map<number, Prefetched>();

  prefetch(imageId: number, fetch: () => Promise<ImageAnnotationsData>): void {
    if (this.entries.has(imageId)) return;
    const promise = fetch();
    // A failed prefetch is dropped; opening the image then fetches it as usual.
    promise.catch(() => this.entries.get(imageId)?.promise === promise && this.entries.delete(imageId));
    this.entries.set(imageId, { promise, startedAt: Date.now() });
  }

  /** The prefetched set of `imageId`, or null; the session forgets it once loaded into the editor. */
  get(imageId: number): Prefetched | null {
    return this.entries.get(imageId) ?? null;
  }

  /** Drops everything but `imageIds` (the open image's neighbours). */
  keepOnly(imageIds: readonly number[]): void {
    for (const id of [...this.entries.keys()]) if (!imageIds.includes(id)) this.entries.delete(id);
  }

  /** This page saved `imageId`: a set fetched before that save is out of date. */
  forget(imageId: number): void {
    this.entries.delete(imageId);
  }

  clear(): void {
    this.entries.clear();
  }
}
