import { SseParser, type SseEvent } from './sseParser';

/** What a handler says after an event: 'end' when the stream is complete (no reconnect follows). */
export type StreamVerdict = 'continue' | 'end';

/** A connection the server answered with something other than an event stream, or none at all (status 0). */
export interface StreamFailure {
  status: number;
  /** The answer's body, parsed as JSON when it is JSON (the API's error envelope), else its text. */
  body: unknown;
}

export interface EventStreamOptions {
  url: string;
  /** Headers of each attempt, read again on every reconnect (the session token may have changed). */
  headers?: () => Record<string, string>;
  onEvent: (event: SseEvent) => StreamVerdict | void;
  /** A connection is open (attempt 0 is the first; later ones are reconnects). */
  onOpen?: (attempt: number) => void;
  /** A refusal that retrying cannot fix (4xx, or an answer that is not a stream): the reader stops. */
  onFatal: (failure: StreamFailure) => void;
  /** The connection dropped or a transient failure: the reader waits `delayMs`, then reconnects. */
  onRetry?: (info: { attempt: number; delayMs: number; failure: StreamFailure | null }) => void;
  /** Resume after this event id (sent as Last-Event-ID on the first connection too). */
  lastEventId?: string;
  /** First reconnection delay; doubles per failed attempt up to maxRetryMs. A `retry:` field replaces it. */
  retryMs?: number;
  maxRetryMs?: number;
  fetchImpl?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface EventStreamHandle {
  close: () => void;
  /** Settles when the reader stops: closed, ended by a handler, or refused. */
  done: Promise<void>;
  lastEventId: () => string;
}

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** A fetch that settles when the signal aborts, even if the transport ignores the signal. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new DOMException('Aborted', 'AbortError'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function readBody(res: Response): Promise<unknown> {
  try {
    const text = await res.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  } catch {
    return null;
  }
}

/** 4xx other than timeouts and rate limits will not change on retry; neither will a 200 that is not a stream. */
function isFatal(res: Response, isStream: boolean): boolean {
  if (res.ok) return !isStream;
  return res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
}

/**
 * Server-sent events over fetch. EventSource cannot send headers, and the API authenticates with X-Token
 * (a token in the URL would end up in proxy logs), so this reader does what EventSource does: parses the
 * stream, remembers the last event id and reconnects with Last-Event-ID after a drop, with a growing delay
 * while the server stays unreachable. It stops for good when a handler says the stream is complete, on
 * close(), or on a refusal (bad session, unknown training).
 */
export function openEventStream(options: EventStreamOptions): EventStreamHandle {
  const controller = new AbortController();
  const { signal } = controller;
  const parser = new SseParser(options.lastEventId ?? '');
  const fetchImpl = options.fetchImpl ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = options.sleep ?? defaultSleep;
  const baseMs = options.retryMs ?? 1000;
  const maxMs = options.maxRetryMs ?? 30_000;

  /** One connection: true when the handler ended the stream or the failure is fatal. */
  async function connect(attempt: number, onHealthy: () => void): Promise<{ stop: boolean; failure: StreamFailure | null }> {
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers?.() };
    if (parser.lastEventId) headers['Last-Event-ID'] = parser.lastEventId;
    let res: Response;
    try {
      res = await abortable(fetchImpl(options.url, { headers, signal, cache: 'no-store' }), signal);
    } catch {
      return { stop: signal.aborted, failure: { status: 0, body: null } };
    }
    const isStream = (res.headers.get('content-type') ?? '').includes('text/event-stream') && res.body !== null;
    if (!res.ok || !isStream) {
      const failure = { status: res.status, body: await readBody(res) };
      if (isFatal(res, isStream)) {
        if (!signal.aborted) options.onFatal(failure);
        return { stop: true, failure };
      }
      return { stop: signal.aborted, failure };
    }
    options.onOpen?.(attempt);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // close() ends a pending read at once, whatever the transport does with the fetch's signal.
    const onAbort = () => void reader.cancel().catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
          onHealthy();
          if (options.onEvent(event) === 'end' || signal.aborted) {
            void reader.cancel().catch(() => undefined);
            return { stop: true, failure: null };
          }
        }
      }
    } catch {
      // Dropped mid-stream (network, server restart) or aborted by close(): decided below.
    } finally {
      signal.removeEventListener('abort', onAbort);
      parser.reset();
    }
    return { stop: signal.aborted, failure: null };
  }

  async function run(): Promise<void> {
    let attempt = 0;
    while (!signal.aborted) {
      const { stop, failure } = await connect(attempt, () => (attempt = 0));
      if (stop || signal.aborted) return;
      const delayMs = Math.min(maxMs, (parser.retryMs ?? baseMs) * 2 ** attempt);
      attempt++;
      options.onRetry?.({ attempt, delayMs, failure });
      await sleep(delayMs, signal);
    }
  }

  const done = run();
  return {
    close: () => controller.abort(),
    done,
    lastEventId: () => parser.lastEventId,
  };
}
