import type { FastifyInstance } from 'fastify';

/**
 * Requests take turns, a few per turn of the event loop.
 *
 * Node 20 accepts one new connection per turn of the event loop. Handled as they arrive, all the requests that
 * became readable in one turn ran in that turn: with 200 busy connections a turn lasted 200 requests, so a
 * connection opened meanwhile waited for hundreds of turns before its first request was even read (bench:api:
 * up to 10 s, and timeouts, while p50 was 120 ms). Here a request waits for its turn before its handler runs,
 * and each turn runs at most `perTurn` of them: turns stay short, new connections are accepted within a few
 * of them, and every waiting request still runs in arrival order.
 */
export function turnTaker(perTurn: number) {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const runSome = () => {
    // Each resolved turn continues as a microtask right after this callback, before the loop turns again.
    for (let i = 0; i < perTurn && waiting.length > 0; i++) waiting.shift()!();
    if (waiting.length > 0) setImmediate(runSome);
    else scheduled = false;
  };
  return {
    turn(): Promise<void> {
      return new Promise((resolve) => {
        waiting.push(resolve);
        if (!scheduled) {
          scheduled = true;
          setImmediate(runSome);
        }
      });
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/** Every request takes its turn before anything else runs for it (register first). */
export function installTurns(app: FastifyInstance, perTurn = 8): void {
  const turns = turnTaker(perTurn);
  app.addHook('onRequest', () => turns.turn());
}
