import { useCallback, useEffect, useState } from 'react';
import type { ImageData } from '@loupe/contracts';
import { DecodedImages } from '../canvas/decodedImages';
import { getAnnotations } from '../markApi';
import { AnnotationPrefetch, prefetchEnabled } from './annotationPrefetch';

/** Neighbours fetched ahead: next first (the usual direction), then previous. */
const NEIGHBOURS = [1, -1] as const;
/** Longest wait for an idle moment after the open image is shown. */
const IDLE_TIMEOUT_MS = 300;

export interface PrefetchStores {
  readonly images: DecodedImages;
  readonly annotations: AnnotationPrefetch;
  /** Off (a switch for measuring a cold open): neighbours are not fetched ahead, only the image stepped to. */
  readonly neighbours: boolean;
}

/** The page's decoded images and fetched-ahead annotations, released when the page goes. */
export function usePrefetchStores(): PrefetchStores {
  const [stores] = useState<PrefetchStores>(() => ({ images: new DecodedImages(), annotations: new AnnotationPrefetch(), neighbours: prefetchEnabled() }));
  useEffect(
    () => () => {
      stores.images.dispose();
      stores.annotations.clear();
    },
    [stores],
  );
  return stores;
}

/**
 * Starts an image's two loads: the image first, so the server begins streaming its bytes before it serializes
 * the annotations (one Node process answers both; the other order delayed the image's first byte ~100 ms).
 */
function startLoading({ images, annotations }: PrefetchStores, modelId: string, image: ImageData): void {
  void images.load(image.originalUrl).catch(() => undefined);
  annotations.prefetch(image.id, () => getAnnotations(modelId, image.id, { silent: true }));
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
 * Makes an image switch wait for as little as possible. `warm(index)` starts the loads of the image a step goes
 * to at the click, before the page re-renders for it (the session's effect then finds them under way); the
 * chosen image's decode also starts as soon as it is chosen (the first image, a retry). Once an image is on
 * screen and the browser is idle, its neighbours' annotations and decoded images are fetched, so paging opens
 * them without a request; that waits for the open image so it never competes with it.
 */
export function useNeighbourPrefetch({ modelId, chosen, shown, index, imageAt, ...stores }: Args): (index: number) => void {
  const { images, annotations, neighbours } = stores;
  const url = chosen ? chosen.originalUrl : null;
  useEffect(() => {
    if (url) void images.load(url).catch(() => undefined);
  }, [images, url]);

  useEffect(() => {
    if (!neighbours || !shown) return;
    let live = true;
    const cancel = whenIdle(() => {
      void Promise.all(NEIGHBOURS.map((d) => imageAt(index + d).catch(() => null))).then((found) => {
        if (!live) return;
        const present = found.filter((n): n is ImageData => n !== null);
        annotations.keepOnly(present.map((n) => n.id));
        for (const n of present) startLoading({ images, annotations, neighbours }, modelId, n);
      });
    });
    return () => {
      live = false;
      cancel();
    };
  }, [annotations, images, imageAt, index, modelId, neighbours, shown]);

  return useCallback(
    (target: number) =>
      void imageAt(target).then(
        (image) => image && startLoading({ images, annotations, neighbours }, modelId, image),
        () => undefined,
      ),
    [annotations, images, imageAt, modelId, neighbours],
  );
}
