import { EventEmitter } from 'node:events';
import type { TrainingProgressEvent, TrainingStateEvent } from '@loupe/contracts';

/** A live training event; `id` (the epoch) is what a reconnecting client sends back as Last-Event-ID. */
export type TrainingEvent = { type: 'progress'; id?: number; data: TrainingProgressEvent } | { type: 'state'; data: TrainingStateEvent };

/**
 * In-process fan-out from the runner to the SSE streams. Only live events travel here; history is read
 * from the database, so a client that was away loses nothing.
 */
export function trainingBus() {
  const emitter = new EventEmitter();
  // Every open progress page is a listener; the default limit of 10 would warn on a busy server.
  emitter.setMaxListeners(0);
  return {
    publish: (trainingId: number, event: TrainingEvent) => emitter.emit(String(trainingId), event),
    subscribe(trainingId: number, listener: (event: TrainingEvent) => void): () => void {
      emitter.on(String(trainingId), listener);
      return () => emitter.off(String(trainingId), listener);
    },
  };
}
export type TrainingBus = ReturnType<typeof trainingBus>;
