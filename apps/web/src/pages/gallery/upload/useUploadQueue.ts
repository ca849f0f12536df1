import { useState, useSyncExternalStore } from 'react';
import { DEFAULT_QUEUE_OPTIONS, UploadQueue, type Transport } from './queue';

/** One queue per wizard run, rendered through useSyncExternalStore. */
export function useUploadQueue(transport: Transport) {
  const [queue] = useState(() => new UploadQueue(transport, DEFAULT_QUEUE_OPTIONS));
  const snapshot = useSyncExternalStore(queue.subscribe, queue.getSnapshot);
  return { queue, snapshot };
}
