import { describe, expect, it } from 'vitest';
import { turnTaker } from '../src/http/turns.js';

describe('requests take turns (issue 30 item 10)', () => {
  it('runs a few waiting requests per turn of the event loop, in arrival order, so the loop keeps turning', async () => {
    const turns = turnTaker(4);
    // Counts the turns of the event loop (Node accepts one new connection per turn).
    let loop = 0;
    let counting = true;
    const count = () => {
      loop++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const ran: Array<{ id: number; loop: number }> = [];
    const requests = Array.from({ length: 10 }, (_, id) => turns.turn().then(() => ran.push({ id, loop })));
    expect(turns.waiting).toBe(10);
    await Promise.all(requests);
    counting = false;
    expect(ran.map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Handled all at once, as before, the ten ran in one turn and nothing else could happen meanwhile.
    const perTurn = new Map<number, number>();
    for (const r of ran) perTurn.set(r.loop, (perTurn.get(r.loop) ?? 0) + 1);
    expect([...perTurn.values()]).toEqual([4, 4, 2]);
    expect(turns.waiting).toBe(0);
    // Idle again: the next request gets its turn on the next one.
    await turns.turn();
  });
});
