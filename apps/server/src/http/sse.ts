import type { FastifyReply, FastifyRequest } from 'fastify';

/** A comment line now and then keeps proxies from closing a quiet stream (a long epoch, a slow test). */
const KEEPALIVE_MS = 15_000;

/** One server-sent event; `id` is what a reconnecting client sends back as Last-Event-ID. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface SseStream {
  write(frame: string): void;
  /** Ends the response; also runs when the client goes away. */
  end(): void;
  readonly ended: boolean;
}

/**
 * Takes the response over as text/event-stream with keep-alive comments. `release` (e.g. unsubscribing from
 * a bus) runs once when the stream ends, by `end()` or because the client left.
 */
export function openSse(req: FastifyRequest, reply: FastifyReply, release: () => void): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  let ended = false;
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const end = () => {
    if (ended) return;
    ended = true;
    release();
    clearInterval(keepalive);
    res.end();
  };
  req.raw.on('close', end);
  return {
    write: (frame) => {
      if (!ended) res.write(frame);
    },
    end,
    get ended() {
      return ended;
    },
  };
}
