import { useEffect, useState } from 'react';
import type { ImageData } from '@loupe/contracts';
import { withToken } from '@/pages/gallery/galleryApi';
import { DecodedImages } from '../canvas/decodedImages';
import { getAnnotations } from '../markApi';
import { AnnotationPrefetch, prefetchEnabled } from './annotationPrefetch';

/** Neighbours fetched ahead: next first (the usual direction), then previous. */
const NEIGHBOURS = [1, -1] as const;
/** Longest wait for an idle moment after the open image is shown. */
const IDLE_TIMEOUT_MS = 300;

export interface PrefetchStores {
  readonly images: DecodedImages;
  /** null when prefetching is switched off: every image's annotations are then fetched when it opens. */
  readonly annotations: AnnotationPrefetch | null;
}

/** The page's decoded images and prefetched annotations, released when the page goes. */
export function usePrefetchStores(): PrefetchStores {
  const [stores] = useState<PrefetchStores>(() => ({
    images: new DecodedImages(),
    annotations: prefetchEnabled() ? new AnnotationPrefetch() : null,
  }));
  useEffect(
    () => () => {
      stores.images.dispose();
      stores.annotations?.clear();
    },
    [stores],
  );
  return stores;
}

interface Args extends PrefetchStores {
  modelId: string;
  /** The image the navigator has chosen, and whether the session shows it yet. */
  chosen: ImageData | null;
  shown: boolean;
  index: number;
  imageAt(index: number): Promise<ImageData | null>;
}

const whenIdle = (fn: () => void): (() => void) => {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 100);
  return () => clearTimeout(id);
};

/**
 * Makes an image switch wait for as little as possible. The chosen image's decode starts at once, in parallel
 * with its annotations (the canvas used to start it only after them). Once an image is on screen and the
 * browser is idle, its neighbours' annotations and decoded images are fetched, so paging opens them without a
 * request; the prefetch waits for the open image so it never competes with it.
 */
export function useNeighbourPrefetch({ modelId, chosen, shown, index, imageAt, images, annotations }: Args): void {
  const url = chosen ? withToken(chosen.originalUrl) : null;
  useEffect(() => {
    if (url) void images.load(url).catch(() => undefined);
  }, [images, url]);

  useEffect(() => {
    if (!annotations || !shown) return;
    let live = true;
    const cancel = whenIdle(() => {
      void Promise.all(NEIGHBOURS.map((d) => imageAt(index + d).catch(() => null))).then((neighbours) => {
        if (!live) return;
        const present = neighbours.filter((n): n is ImageData => n !== null);
        annotations.keepOnly(present.map((n) => n.id));
        for (const n of present) {
          annotations.prefetch(n.id, () => getAnnotations(modelId, n.id, { silent: true }));
          void images.load(withToken(n.originalUrl)).catch(() => undefined);
        }
      });
    });
    return () => {
      live = false;
      cancel();
    };
  }, [annotations, images, imageAt, index, modelId, shown]);
}
