import { EventEmitter } from 'node:events';

/**
 * The EventBus port: live job events (training, test and every later job's progress) from wherever the job
 * runs to every SSE stream that follows it. Only live events travel here; history is read from the database,
 * so a client that was away (or reconnects with Last-Event-ID) loses nothing.
 * - embedded (here): in-process;
 * - scale (event-bus-redis.ts): Redis pub/sub (REDIS_URL), so a browser on any server instance follows a job
 *   running on any runner.
 * Both pass test/event-bus.contract.test.ts. Events must be JSON-serialisable.
 */
export interface EventBus<E> {
  publish(id: number, event: E): void;
  /** Answers the unsubscribe function. Events of one id arrive in the order they were published. */
  subscribe(id: number, listener: (event: E) => void): () => void;
  /** Resolves once every subscription made so far is active (Redis: SUBSCRIBE acknowledged); at once in memory. */
  ready(): Promise<void>;
}

/** What buses of several topics share (one Redis connection pair for all of them). */
export interface EventHub {
  readonly kind: 'memory' | 'redis';
  /** The bus of one topic ('training', 'test', …): channels of different topics never mix. */
  topic<E>(name: string): EventBus<E>;
  close(): Promise<void>;
}

/** In-process fan-out, one channel per topic and subject id. */
export function memoryEventHub(log?: { error(obj: unknown, msg?: string): void }): EventHub {
  const emitter = new EventEmitter();
  // Every open progress page is a listener; the default limit of 10 would warn on a busy server.
  emitter.setMaxListeners(0);
  return {
    kind: 'memory',
    topic<E>(name: string): EventBus<E> {
      return {
        publish: (id, event) => void emitter.emit(`${name}:${id}`, event),
        subscribe(id, listener) {
          // emit() stops at a listener that throws and throws into the publisher (the runner): keep each apart.
          const guarded = (event: E) => {
            try {
              listener(event);
            } catch (e) {
              log?.error(e, `a ${name} event listener failed`);
            }
          };
          emitter.on(`${name}:${id}`, guarded);
          return () => emitter.off(`${name}:${id}`, guarded);
        },
        ready: async () => undefined,
      };
    },
    close: async () => void emitter.removeAllListeners(),
  };
}
