import { Redis, type RedisOptions } from 'ioredis';

/** Reconnects back off to this: a restarted Redis is found again within ~2 s, and a dead one is not hammered. */
const MAX_BACKOFF_MS = 2000;

export interface RedisConnectionOptions {
  /**
   * For BullMQ: its workers block on Redis and it wants no command given up on (maxRetriesPerRequest null),
   * so a Redis outage pauses the queue instead of failing jobs.
   */
  bullmq?: boolean;
  /**
   * For callers that must answer quickly (the rate limiter): a command fails after one failed reconnect or a
   * second without a reply, instead of waiting in the offline queue through the whole outage.
   */
  failFast?: boolean;
  /** Where the connection's outages and recoveries are told (once each, not on every retry). */
  log?: (message: string) => void;
  /** Anything else ioredis takes (the event hub turns autoResubscribe off to resubscribe itself). */
  redis?: RedisOptions;
}

/** The URL as it may be logged: a password in it is replaced by ***. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparseable URL)';
  }
}

/**
 * An ioredis client for one purpose (named `loupe:<purpose>` in CLIENT LIST, so an operator sees who holds which
 * connection). It connects at once and reconnects forever with a backoff capped at 2 s.
 */
export function redisConnection(url: string, purpose: string, options: RedisConnectionOptions = {}): Redis {
  const client = new Redis(url, {
    connectionName: `loupe:${purpose}`,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times - 1, 5), MAX_BACKOFF_MS),
    ...(options.bullmq ? { maxRetriesPerRequest: null } : {}),
    ...(options.failFast ? { maxRetriesPerRequest: 1, commandTimeout: 1000 } : {}),
    ...options.redis,
  });
  // Without an 'error' listener ioredis prints every failed retry; one line per outage is enough.
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    options.log?.(`Redis (${purpose}) unreachable, retrying: ${err.message}`);
  });
  client.on('ready', () => {
    if (!down) return;
    down = false;
    options.log?.(`Redis (${purpose}) reachable again`);
  });
  return client;
}

/**
 * Resolves when REDIS_URL answers PING within timeoutMs; otherwise throws a start-up error naming the URL (its
 * password hidden) and the reason, instead of a server that starts and then retries in the background forever.
 */
export async function redisReachable(url: string, timeoutMs = 5000): Promise<void> {
  const client = new Redis(url, {
    connectionName: 'loupe:probe',
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
  });
  let lastError: Error | null = null;
  client.on('error', (err: Error) => {
    lastError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeout,
    ]);
  } catch (err) {
    // ioredis's own message for a refused connection is "Connection is closed."; the socket error says why.
    const reason = (lastError as Error | null)?.message ?? (err as Error).message;
    throw new Error(`REDIS_URL ${redactRedisUrl(url)} cannot be reached: ${reason}`);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
