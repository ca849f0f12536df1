import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { ImageData } from '@loupe/contracts';
import { fetchImagePage, forgetImagePages, patchCachedImage } from '../markApi';
import { locate, pageOf, slotOf, step, type StepResult } from './position';

export interface ImageNavigation {
  status: 'loading' | 'empty' | 'ready' | 'error';
  /** 0-based position of the open image in the list. */
  index: number;
  total: number;
  image: ImageData | null;
  /** A step was asked for and its image is not on screen yet: keys must not act on the image still showing. */
  moving: boolean;
}

const LOADING: ImageNavigation = { status: 'loading', index: 0, total: 0, image: null, moving: false };

/**
 * The open image and its neighbours in the gallery order. Opens `startId` (from ?imageId=) or the first image.
 * Steps count from the image last asked for, not the one on screen, so quick presses are never lost while a
 * page loads; a step overtaken by a newer one is dropped when its page arrives.
 */
export function useImageNavigator(modelId: string, startId: number | null, onError: (error: unknown) => void) {
  const client = useQueryClient();
  const [nav, setNav] = useState<ImageNavigation>(LOADING);
  const target = useRef(0);
  const total = useRef(0);
  const errorRef = useRef(onError);
  errorRef.current = onError;

  const getPage = useCallback((page: number) => fetchImagePage(client, modelId, page), [client, modelId]);

  const show = useCallback(
    async (index: number) => {
      target.current = index;
      setNav((n) => (n.moving ? n : { ...n, moving: true }));
      try {
        const page = await getPage(pageOf(index));
        if (target.current !== index) return;
        total.current = page.total;
        if (page.total === 0) return setNav({ ...LOADING, status: 'empty' });
        const image = page.items[slotOf(index)];
        // The list shrank under us (images deleted elsewhere): open its new last image instead.
        if (!image) return index >= page.total ? void show(page.total - 1) : setNav({ ...LOADING, status: 'error' });
        setNav({ status: 'ready', index, total: page.total, image, moving: false });
      } catch (error) {
        if (target.current !== index) return;
        setNav((n) => ({ ...n, status: 'error', moving: false }));
        errorRef.current(error);
      }
    },
    [getPage],
  );

  const startRef = useRef(startId);
  useEffect(() => {
    let live = true;
    forgetImagePages(client, modelId);
    const start = startRef.current;
    const open = start === null ? Promise.resolve(0) : locate(start, getPage).then((i) => i ?? 0);
    open.then(
      (index) => live && void show(index),
      (error) => {
        if (!live) return;
        setNav({ ...LOADING, status: 'error' });
        errorRef.current(error);
      },
    );
    return () => {
      live = false;
    };
  }, [client, modelId, getPage, show]);

  /** Where one step would go, or which end it hits (checked before flushing a save or leaving a drawing). */
  const peek = useCallback((direction: -1 | 1): StepResult => step(target.current, direction, total.current), []);

  /** One image back or forward; answers the end notice instead when there is no such image. */
  const go = useCallback(
    (direction: -1 | 1): 'firstImage' | 'lastImage' | null => {
      const next = peek(direction);
      if ('notice' in next) return next.notice;
      void show(next.index);
      return null;
    },
    [peek, show],
  );

  /** The open image changed on the server (its class): keep the cached page and the screen in step. */
  const replaceImage = useCallback(
    (image: ImageData, index: number) => {
      patchCachedImage(client, modelId, pageOf(index), image);
      setNav((n) => (n.image?.id === image.id ? { ...n, image } : n));
    },
    [client, modelId],
  );

  const reload = useCallback(() => void show(target.current), [show]);

  /** The image at `index` (a neighbour to prefetch), from the cached list page; null past either end. */
  const imageAt = useCallback(
    async (index: number): Promise<ImageData | null> => {
      if (index < 0 || index >= total.current) return null;
      return (await getPage(pageOf(index))).items[slotOf(index)] ?? null;
    },
    [getPage],
  );

  // `state` keeps its identity between unrelated renders, for memoized views of it (NavigationBar).
  return { ...nav, state: nav, peek, go, replaceImage, reload, imageAt };
}
