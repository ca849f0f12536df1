import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';

/** ?imageId= as the page was opened with (a link from the gallery, a reload): the image to open first. */
export function useStartImageId(): number | null {
  const [params] = useSearchParams();
  const [start] = useState(() => {
    const raw = Number(params.get('imageId'));
    return Number.isInteger(raw) && raw > 0 ? raw : null;
  });
  return start;
}

/**
 * Keep ?imageId= on the image on screen, replacing the entry rather than adding one, so that Back leaves the
 * page instead of walking through images and a reload reopens the same image.
 */
export function useSyncImageId(openId: number | undefined): void {
  const [params, setParams] = useSearchParams();
  useEffect(() => {
    if (openId === undefined || params.get('imageId') === String(openId)) return;
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.set('imageId', String(openId));
        return next;
      },
      { replace: true },
    );
  }, [openId, params, setParams]);
}
