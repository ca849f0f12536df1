import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SaveQueue, type SaveStatus } from '../save/saveQueue';

class Conflict extends Error {}

/** A fake server: each send waits until the test resolves or rejects it, so "in flight" is observable. */
function harness(baseVersion = 3) {
  const sent: { payload: string; base: number }[] = [];
  const replies: { resolve: (v: number) => void; reject: (e: unknown) => void }[] = [];
  const statuses: SaveStatus[] = [];
  const errors: unknown[] = [];
  const reload = vi.fn(async () => 40);
  const queue = new SaveQueue<string>({
    baseVersion,
    delayMs: 300,
    send: (payload, base) =>
      new Promise<number>((resolve, reject) => {
        sent.push({ payload, base });
        replies.push({ resolve, reject });
      }),
    isConflict: (e) => e instanceof Conflict,
    reload,
    onStatus: (s) => statuses.push(s),
    onError: (e) => errors.push(e),
  });
  const answer = async (i: number, version: number) => {
    replies[i]!.resolve(version);
    await vi.advanceTimersByTimeAsync(0);
  };
  const fail = async (i: number, error: unknown) => {
    replies[i]!.reject(error);
    await vi.advanceTimersByTimeAsync(0);
  };
  return { queue, sent, statuses, errors, reload, answer, fail };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('save queue', () => {
  it('waits for 300 ms of quiet and sends only the last state', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(200);
    h.queue.schedule('b');
    await vi.advanceTimersByTimeAsync(200);
    expect(h.sent).toEqual([]);
    expect(h.queue.status).toBe('saving');
    await vi.advanceTimersByTimeAsync(100);
    expect(h.sent).toEqual([{ payload: 'b', base: 3 }]);
    await h.answer(0, 4);
    expect(h.queue.status).toBe('saved');
    expect(h.queue.baseVersion).toBe(4);
    expect(h.statuses).toEqual(['saving', 'saved']);
  });

  it('keeps one request in flight and then sends the latest state on the new version', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    h.queue.schedule('b');
    h.queue.schedule('c');
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.sent.map((s) => s.payload)).toEqual(['a']);
    await h.answer(0, 4);
    expect(h.sent).toEqual([
      { payload: 'a', base: 3 },
      { payload: 'c', base: 4 },
    ]);
    expect(h.queue.status).toBe('saving');
    await h.answer(1, 5);
    expect(h.queue.status).toBe('saved');
    expect(h.queue.dirty).toBe(false);
  });

  it('waits out the debounce of a change made while a request travels', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    h.queue.schedule('b');
    await h.answer(0, 4);
    expect(h.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(h.sent.map((s) => s.payload)).toEqual(['a', 'b']);
  });

  it('reloads on a conflict, drops what was queued and continues from the reloaded version', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    h.queue.schedule('b');
    await h.fail(0, new Conflict());
    expect(h.reload).toHaveBeenCalledTimes(1);
    expect(h.queue.baseVersion).toBe(40);
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.sent).toHaveLength(1);
    expect(h.queue.status).toBe('saved');
    h.queue.schedule('c');
    await vi.advanceTimersByTimeAsync(300);
    expect(h.sent[1]).toEqual({ payload: 'c', base: 40 });
  });

  it('marks a failure, retries it on demand, and a newer change supersedes it', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    await h.fail(0, new Error('offline'));
    expect(h.queue.status).toBe('failed');
    expect(h.errors).toHaveLength(1);
    expect(h.queue.dirty).toBe(true);
    h.queue.retry();
    expect(h.sent[1]).toEqual({ payload: 'a', base: 3 });
    await h.fail(1, new Error('offline'));
    h.queue.schedule('b');
    await vi.advanceTimersByTimeAsync(300);
    expect(h.sent[2]).toEqual({ payload: 'b', base: 3 });
    await h.answer(2, 4);
    expect(h.queue.status).toBe('saved');
  });

  it('flush sends a pending change at once and resolves when it is stored', async () => {
    const h = harness();
    h.queue.schedule('a');
    const flushed = h.queue.flush();
    expect(h.sent).toEqual([{ payload: 'a', base: 3 }]);
    let done: boolean | undefined;
    void flushed.then((ok) => (done = ok));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBeUndefined();
    await h.answer(0, 4);
    expect(done).toBe(true);
  });

  it('flush waits for the request in flight and then sends what came after it', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    h.queue.schedule('b');
    const flushed = h.queue.flush();
    await h.answer(0, 4);
    expect(h.sent[1]).toEqual({ payload: 'b', base: 4 });
    await h.answer(1, 5);
    await expect(flushed).resolves.toBe(true);
  });

  it('flush retries a failed state once and reports whether it got through', async () => {
    const h = harness();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(300);
    await h.fail(0, new Error('offline'));
    const flushed = h.queue.flush();
    expect(h.sent[1]).toEqual({ payload: 'a', base: 3 });
    await h.fail(1, new Error('offline'));
    await expect(flushed).resolves.toBe(false);
    expect(h.queue.status).toBe('failed');
  });

  it('flush with nothing queued resolves at once, and a disposed queue ignores changes', async () => {
    const h = harness();
    await expect(h.queue.flush()).resolves.toBe(true);
    h.queue.dispose();
    h.queue.schedule('a');
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.sent).toEqual([]);
  });
});
