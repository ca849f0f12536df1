import { useEffect, useRef } from 'react';
import { perfMark } from '../shared/perfMarks';
import { sizeOf, type DecodedImages } from './decodedImages';
import type { CanvasRenderer } from './renderer';

/**
 * Hands the renderer the decoded image of `url` from the shared cache: at once when it was decoded in advance
 * (the page starts it with the annotations, or prefetched it), else when it arrives. The previous image
 * disappears at once; the image stays held (not evicted) while it is on screen.
 */
export function useImageSource(renderer: CanvasRenderer, images: DecodedImages, url: string, onLoaded: (size: { width: number; height: number }) => void): void {
  const loaded = useRef(onLoaded);
  useEffect(() => {
    loaded.current = onLoaded;
  });
  useEffect(() => {
    let live = true;
    const { promise, release } = images.hold(url);
    const ready = images.peek(url);
    perfMark(ready ? 'image:cached' : 'image:wait');
    if (ready) {
      renderer.setImage(ready, url);
      loaded.current(sizeOf(ready));
    } else {
      renderer.setImage(null);
      promise
        .then((source) => {
          perfMark('image:decoded');
          if (!live) return;
          renderer.setImage(source, url);
          loaded.current(sizeOf(source));
        })
        // A broken image leaves the canvas empty; the page shows the error from its own requests.
        .catch(() => undefined);
    }
    return () => {
      live = false;
      // The renderer must not draw a bitmap the cache may close once released.
      renderer.setImage(null);
      release();
    };
  }, [renderer, images, url]);
}
