import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { toAnnotations, toShapes, type Editor } from '@loupe/annotator';
import type { ImageAnnotationsData, ImageData, NewAnnotation } from '@loupe/contracts';
import { fetchAnnotations, isConflict, saveAnnotations, useDatasetStale } from '../markApi';
import { SaveQueue, type SaveStatus } from '../save/saveQueue';
import { perfMark } from '../shared/perfMarks';
import { PREFETCH_FRESH_MS, type AnnotationPrefetch } from './annotationPrefetch';

export interface ImageSession {
  /** The image the editor holds: the previous one until the next one's annotations have arrived. */
  image: ImageData | null;
  /** The annotations of the image on screen are being fetched: the editor still holds the previous image. */
  loading: boolean;
  loadFailed: boolean;
  status: SaveStatus;
  retry(): void;
  /** Save what is queued now; true when everything reached the server. */
  flush(): Promise<boolean>;
  /** True while a change is not on the server yet. */
  dirty(): boolean;
  /** The version the next save builds on (convert test results sends it). */
  baseVersion(): number | null;
  /** A set the server made (converted test results) becomes the editor's, and its version the base. */
  applyServerSet(data: ImageAnnotationsData): void;
}

/**
 * Connects the editor to the server for the image on screen: loads its annotations into the editor, saves
 * every committed change through a save queue (one per image), and after a conflict puts the server's set
 * into the editor. Commits that the page itself causes (loading, reloading) are not saved back.
 */
export function useImageSession(
  editor: Editor,
  modelId: string,
  image: ImageData | null,
  onError: (e: unknown) => void,
  prefetched: AnnotationPrefetch | null = null,
): ImageSession {
  const client = useQueryClient();
  const stale = useDatasetStale(modelId);
  const queue = useRef<SaveQueue<NewAnnotation[]> | null>(null);
  const loaded = useRef<number | null>(null);
  const applying = useRef(false);
  const latest = useRef({ onError, stale });
  latest.current = { onError, stale };
  const [status, setStatus] = useState<SaveStatus>('saved');
  const [shown, setShown] = useState<ImageData | null>(null);
  const [loading, setLoading] = useState(true);
  const [loadFailed, setLoadFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  const apply = useCallback((change: () => void) => {
    applying.current = true;
    try {
      change();
    } finally {
      applying.current = false;
    }
  }, []);

  useEffect(
    () =>
      editor.subscribe((state, change) => {
        if (change.commit && !applying.current) queue.current?.schedule(toAnnotations(state.shapes));
      }),
    [editor],
  );

  const makeQueue = useCallback(
    (imageId: number, version: number) => {
      const q: SaveQueue<NewAnnotation[]> = new SaveQueue<NewAnnotation[]>({
        baseVersion: version,
        send: async (annotations, baseVersion) => {
          const data = await saveAnnotations(modelId, imageId, { baseVersion, annotations });
          prefetched?.forget(imageId);
          latest.current.stale();
          return data.version;
        },
        isConflict,
        reload: async (error) => {
          latest.current.onError(error);
          const data = await fetchAnnotations(client, modelId, imageId);
          if (loaded.current === imageId) apply(() => editor.replaceShapes(toShapes(data.annotations)));
          return data.version;
        },
        // An earlier image's queue may still finish after a switch: only the open image's status shows.
        onStatus: (s) => queue.current === q && setStatus(s),
        onError: (e) => latest.current.onError(e),
      });
      return q;
    },
    [apply, client, editor, modelId, prefetched],
  );

  const imageId = image?.id;
  const imageRef = useRef(image);
  imageRef.current = image;
  useEffect(() => {
    const open = imageRef.current;
    if (imageId === undefined || !open) return;
    let live = true;
    const previous = queue.current;
    setLoading(true);
    setLoadFailed(false);
    perfMark('annotations:start');
    const ahead = prefetched?.get(imageId) ?? null;
    const fetchNow = () => fetchAnnotations(client, modelId, imageId);
    // A prefetch that failed is not an error yet: the set is fetched now, as without a prefetch.
    const set = ahead ? ahead.promise.catch(fetchNow) : fetchNow();
    void Promise.all([set, previous?.flush()]).then(
      ([data]) => {
        perfMark('annotations:end');
        if (!live) return;
        prefetched?.forget(imageId);
        // Anything committed to the previous image while this one loaded still goes to the previous image.
        if (previous) void previous.flush().finally(() => previous.dispose());
        perfMark('load:start');
        apply(() => editor.load(String(imageId), { width: open.width, height: open.height }, toShapes(data.annotations)));
        perfMark('load:end');
        loaded.current = imageId;
        const q = makeQueue(imageId, data.version);
        queue.current = q;
        if (ahead && Date.now() - ahead.startedAt > PREFETCH_FRESH_MS) {
          // Prefetched a while ago: another tab may have saved since. Unless the user has already changed
          // something (the save then gets the conflict and reloads, as always), take the server's newer set.
          void fetchNow().then(
            (fresh) => {
              if (queue.current !== q || fresh.version <= q.baseVersion || q.dirty) return;
              apply(() => editor.replaceShapes(toShapes(fresh.annotations)));
              q.setBaseVersion(fresh.version);
            },
            () => undefined,
          );
        }
        setShown(open);
        setStatus('saved');
        setLoading(false);
      },
      (error) => {
        if (!live) return;
        setLoadFailed(true);
        latest.current.onError(error);
      },
    );
    return () => {
      live = false;
    };
  }, [apply, attempt, client, editor, imageId, makeQueue, modelId, prefetched]);

  // Leaving the page: what is queued is sent now; the request completes after the page is gone.
  useEffect(
    () => () => {
      const q = queue.current;
      void q?.flush().finally(() => q.dispose());
    },
    [],
  );

  return {
    image: shown,
    loading,
    loadFailed,
    status,
    retry: () => (loadFailed ? setAttempt((n) => n + 1) : queue.current?.retry()),
    flush: () => queue.current?.flush() ?? Promise.resolve(true),
    dirty: () => queue.current?.dirty ?? false,
    baseVersion: () => queue.current?.baseVersion ?? null,
    applyServerSet: (data) => {
      if (loaded.current !== data.imageId) return;
      apply(() => editor.replaceShapes(toShapes(data.annotations)));
      queue.current?.setBaseVersion(data.version);
    },
  };
}
