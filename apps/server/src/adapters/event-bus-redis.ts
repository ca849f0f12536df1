import type { EventBus, EventHub } from './event-bus.js';
import { redisConnection } from './redis.js';

type Listener = (event: unknown) => void;

export interface RedisEventHubOptions {
  /** Dropped messages, throwing listeners and Redis outages are told here. */
  log?: (message: string) => void;
}

/**
 * The EventBus port over Redis pub/sub (REDIS_URL): a job's events, published by whichever runner runs it, reach
 * the SSE streams on every server instance. One publisher and one subscriber connection serve all topics; a
 * channel (`loupe:<topic>:<id>`) is subscribed while this process has a listener on it, so Redis only sends
 * an instance the jobs someone there is watching.
 *
 * Order: Redis delivers one connection's publishes in order, and all of this hub's go through one connection,
 * so events of one job published here arrive in order everywhere. Messages published while Redis is down
 * wait in ioredis's offline queue; anything lost is history the database still has (Last-Event-ID replay).
 */
export function redisEventHub(url: string, options: RedisEventHubOptions = {}): EventHub {
  const log = options.log ?? (() => undefined);
  const pub = redisConnection(url, 'events-pub', { log });
  // The hub resubscribes itself after a reconnect (below), so that ready() can wait for it; ioredis's
  // autoResubscribe would do the same, but out of sight.
  const sub = redisConnection(url, 'events-sub', { log, redis: { autoResubscribe: false } });
  const listeners = new Map<string, Set<Listener>>();
  // SUBSCRIBE/UNSUBSCRIBE not yet answered; ready() waits for those made before it was called.
  const pending = new Set<Promise<unknown>>();
  let closed = false;

  const track = (p: Promise<unknown>) => {
    const settled = p.then(
      () => undefined,
      (err: Error) => log(`Redis event subscription failed: ${err.message}`),
    );
    pending.add(settled);
    void settled.finally(() => pending.delete(settled));
  };

  // After a lost connection: until the new one has every channel again, ready() is not ready.
  let wasReady = false;
  let reconnected: { promise: Promise<void>; resolve: () => void } | null = null;
  sub.on('close', () => {
    if (!wasReady || closed || reconnected) return;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    reconnected = { promise, resolve };
  });
  sub.on('ready', () => {
    wasReady = true;
    const waiting = reconnected;
    if (!waiting) return;
    reconnected = null;
    const channels = [...listeners.keys()];
    if (channels.length === 0) return waiting.resolve();
    const resubscribed = sub.subscribe(...channels);
    track(resubscribed);
    // Resolved when the resubscription is answered; a failure is logged (track) rather than hanging ready().
    void resubscribed.then(waiting.resolve, waiting.resolve);
  });

  sub.on('message', (channel: string, message: string) => {
    const set = listeners.get(channel);
    if (!set) return;
    let event: unknown;
    try {
      event = JSON.parse(message);
    } catch {
      log(`Dropped a malformed event on ${channel}: ${message.slice(0, 80)}`);
      return;
    }
    // A copy: a listener may unsubscribe (its stream ended) while the event is being handed out.
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (err) {
        log(`An event listener on ${channel} threw: ${(err as Error).message}`);
      }
    }
  });

  return {
    kind: 'redis',
    topic<E>(name: string): EventBus<E> {
      const channelOf = (id: number) => `loupe:${name}:${id}`;
      return {
        publish(id, event) {
          pub.publish(channelOf(id), JSON.stringify(event)).catch((err: Error) => log(`Redis publish on ${channelOf(id)} failed: ${err.message}`));
        },
        subscribe(id, listener) {
          const channel = channelOf(id);
          let set = listeners.get(channel);
          if (!set) {
            set = new Set();
            listeners.set(channel, set);
            track(sub.subscribe(channel));
          }
          // Wrapped, so that the same function subscribed twice is two listeners, as with the memory hub.
          const entry: Listener = (event) => listener(event as E);
          set.add(entry);
          let done = false;
          return () => {
            if (done) return;
            done = true;
            const current = listeners.get(channel);
            if (!current?.delete(entry) || current.size > 0) return;
            listeners.delete(channel);
            if (!closed) track(sub.unsubscribe(channel));
          };
        },
        async ready() {
          const waits: Promise<unknown>[] = [...pending];
          if (reconnected) waits.push(reconnected.promise);
          await Promise.all(waits);
        },
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      reconnected?.resolve();
      await Promise.all(
        [pub, sub].map(async (client) => {
          if (client.status !== 'ready') return client.disconnect();
          await client.quit().catch(() => client.disconnect());
        }),
      );
    },
  };
}
