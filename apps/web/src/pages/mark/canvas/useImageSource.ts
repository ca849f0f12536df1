import { useEffect, useRef } from 'react';
import type { CanvasRenderer } from './renderer';

/**
 * Loads and decodes the image off the main thread, then hands the renderer an ImageBitmap (a decoded bitmap
 * the browser cannot evict and re-decode in the middle of a pan). The previous image disappears at once.
 */
export function useImageSource(renderer: CanvasRenderer, url: string, onLoaded: (size: { width: number; height: number }) => void): void {
  const loaded = useRef(onLoaded);
  useEffect(() => {
    loaded.current = onLoaded;
  });
  useEffect(() => {
    let live = true;
    renderer.setImage(null);
    const img = new Image();
    img.decoding = 'async';
    img.src = url;
    img
      .decode()
      .then(() => (typeof createImageBitmap === 'function' ? createImageBitmap(img).catch(() => img) : img))
      .then((source) => {
        if (!live) {
          if (source instanceof ImageBitmap) source.close();
          return;
        }
        renderer.setImage(source, url);
        loaded.current({ width: img.naturalWidth, height: img.naturalHeight });
      })
      // A broken image leaves the canvas empty; the page shows the error from its own requests.
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [renderer, url]);
}
