import { useCallback, useRef, useState } from 'react';
import type { ImageData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useSetImageClass } from '../markApi';
import type { SaveStatus } from '../save/saveQueue';

interface Target {
  image: ImageData;
  index: number;
}

/**
 * One class per image, saved at once. The screen changes before the answer (quick labeling moves on to the next
 * image straight away); a refusal puts the old class back and offers a retry of that image's class.
 */
export function useClassAssign(modelId: string, replaceImage: (image: ImageData, index: number) => void) {
  const setClass = useSetImageClass(modelId);
  const showError = useShowError();
  const [inFlight, setInFlight] = useState(0);
  const [failed, setFailed] = useState<{ target: Target; labelId: number | null } | null>(null);
  const latest = useRef(new Map<number, number>());

  const assign = useCallback(
    (target: Target, labelId: number | null) => {
      const { image, index } = target;
      const before = image;
      // Several quick presses on one image: only the last answer may touch the screen.
      const attempt = (latest.current.get(image.id) ?? 0) + 1;
      latest.current.set(image.id, attempt);
      replaceImage({ ...image, classLabelId: labelId, labeled: labelId !== null }, index);
      setFailed(null);
      setInFlight((n) => n + 1);
      setClass.mutate(
        { imageId: image.id, labelId },
        {
          onSuccess: (data) => {
            if (latest.current.get(image.id) !== attempt) return;
            replaceImage({ ...image, classLabelId: data.classLabelId, labeled: data.labeled }, index);
          },
          onError: (error) => {
            if (latest.current.get(image.id) !== attempt) return;
            replaceImage(before, index);
            setFailed({ target, labelId });
            showError(error);
          },
          onSettled: () => setInFlight((n) => n - 1),
        },
      );
    },
    [replaceImage, setClass, showError],
  );

  const retry = useCallback(() => {
    if (failed) assign(failed.target, failed.labelId);
  }, [assign, failed]);

  const status: SaveStatus = inFlight > 0 ? 'saving' : failed ? 'failed' : 'saved';
  return { assign, retry, status };
}
