import { useCallback, useRef, useState } from 'react';
import { LabelingPaths, type ImageClassesData, type ImageData } from '@loupe/contracts';
import { api } from '@/api/client';
import { useShowError } from '@/api/useShowError';
import { pathOf } from '@/pages/gallery/galleryApi';
import { useDatasetStale } from '../markApi';
import type { SaveStatus } from '../save/saveQueue';
import { withSet, type ClassSet } from './classSet';

interface Target {
  image: ImageData;
  index: number;
}

/**
 * A multi-label image's set, saved whole (PUT imageClasses) at every toggle. The screen changes at once; the
 * saves go one after another so the server ends with the last set the user made. A refusal puts the image's
 * set back as it was before that change and offers a retry.
 */
export function useClassSetAssign(modelId: string, replaceImage: (image: ImageData, index: number) => void) {
  const showError = useShowError();
  const stale = useDatasetStale(modelId);
  const [inFlight, setInFlight] = useState(0);
  const [failed, setFailed] = useState<{ target: Target; set: ClassSet } | null>(null);
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const latest = useRef(new Map<number, number>());

  const assign = useCallback(
    (target: Target, set: ClassSet) => {
      const { image, index } = target;
      const attempt = (latest.current.get(image.id) ?? 0) + 1;
      latest.current.set(image.id, attempt);
      replaceImage(withSet(image, set), index);
      setFailed(null);
      setInFlight((n) => n + 1);
      const url = pathOf(LabelingPaths.imageClasses, { modelId, imageId: image.id });
      chain.current = chain.current.then(async () => {
        try {
          const data = await api.put<ImageClassesData>(url, { labelIds: set.labelIds, none: set.none });
          stale();
          if (latest.current.get(image.id) === attempt) replaceImage(withSet(image, { labelIds: data.classLabelIds, none: data.noClass }), index);
        } catch (error) {
          if (latest.current.get(image.id) === attempt) {
            replaceImage(image, index);
            setFailed({ target, set });
            showError(error);
          }
        } finally {
          setInFlight((n) => n - 1);
        }
      });
    },
    [modelId, replaceImage, showError, stale],
  );

  const retry = useCallback(() => {
    if (failed) assign(failed.target, failed.set);
  }, [assign, failed]);

  const status: SaveStatus = inFlight > 0 ? 'saving' : failed ? 'failed' : 'saved';
  return { assign, retry, status };
}
