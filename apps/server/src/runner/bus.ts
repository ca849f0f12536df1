import { EventEmitter } from 'node:events';
import type { TestProgressEvent, TestStateEvent, TrainingProgressEvent, TrainingStateEvent } from '@loupe/contracts';

/** A live training event; `id` (the epoch) is what a reconnecting client sends back as Last-Event-ID. */
export type TrainingEvent = { type: 'progress'; id?: number; data: TrainingProgressEvent } | { type: 'state'; data: TrainingStateEvent };
/** A live test event: progress is the whole current count, so a reconnect needs no id, only the replay. */
export type TestEvent = { type: 'progress'; data: TestProgressEvent } | { type: 'state'; data: TestStateEvent };

/**
 * In-process fan-out from the runner to the SSE streams, one channel per subject id. Only live events
 * travel here; history is read from the database, so a client that was away loses nothing.
 */
export function eventBus<E>() {
  const emitter = new EventEmitter();
  // Every open progress page is a listener; the default limit of 10 would warn on a busy server.
  emitter.setMaxListeners(0);
  return {
    publish: (id: number, event: E) => emitter.emit(String(id), event),
    subscribe(id: number, listener: (event: E) => void): () => void {
      emitter.on(String(id), listener);
      return () => emitter.off(String(id), listener);
    },
  };
}
export type EventBus<E> = ReturnType<typeof eventBus<E>>;

export const trainingBus = () => eventBus<TrainingEvent>();
export type TrainingBus = EventBus<TrainingEvent>;
export const testBus = () => eventBus<TestEvent>();
export type TestBus = EventBus<TestEvent>;
