import { describe, expect, it } from 'vitest';
import { UploadQueue, type FileOutcome, type Transport } from './queue';

const file = (name: string, size: number) => new File([new Uint8Array(size)], name, { type: 'image/png' });

/** A transport whose requests the test settles by hand. */
function manualTransport() {
  const requests: {
    names: string[];
    progress: (loaded: number) => void;
    resolve: (o: FileOutcome[]) => void;
    reject: (e: Error) => void;
  }[] = [];
  const transport: Transport = (files, onProgress) =>
    new Promise((resolve, reject) => {
      requests.push({ names: files.map((f) => f.name), progress: onProgress, resolve, reject });
    });
  return { transport, requests };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('upload queue', () => {
  it('sends a few files per request with limited concurrency', async () => {
    const { transport, requests } = manualTransport();
    const queue = new UploadQueue(transport, { filesPerRequest: 2, concurrency: 2, bytesPerRequest: 1000 });
    queue.add(['a', 'b', 'c', 'd', 'e'].map((n) => file(`${n}.png`, 10)));
    const finished = queue.start();
    expect(requests.map((r) => r.names)).toEqual([['a.png', 'b.png'], ['c.png', 'd.png']]);
    expect(queue.getSnapshot().counts).toMatchObject({ uploading: 4, waiting: 1 });
    requests[0]!.resolve([{ ok: true }, { ok: true }]);
    await tick();
    // A slot freed up: the last file goes out while the second request is still running.
    expect(requests[2]!.names).toEqual(['e.png']);
    requests[1]!.resolve([{ ok: true }, { ok: true }]);
    requests[2]!.resolve([{ ok: true }]);
    await finished;
    expect(queue.getSnapshot().counts.done).toBe(5);
    expect(queue.getSnapshot().percent).toBe(100);
  });

  it('closes a request early when its files reach the byte budget', () => {
    const { transport, requests } = manualTransport();
    const queue = new UploadQueue(transport, { filesPerRequest: 10, concurrency: 1, bytesPerRequest: 25 });
    queue.add([file('a.png', 10), file('b.png', 10), file('c.png', 10)]);
    void queue.start();
    expect(requests[0]!.names).toEqual(['a.png', 'b.png']);
  });

  it('spreads request progress over the files in body order', () => {
    const { transport, requests } = manualTransport();
    const queue = new UploadQueue(transport, { filesPerRequest: 3, concurrency: 1, bytesPerRequest: 1000 });
    queue.add([file('a.png', 100), file('b.png', 50), file('c.png', 50)]);
    void queue.start();
    requests[0]!.progress(130);
    const snap = queue.getSnapshot();
    expect(snap.items.map((i) => i.loaded)).toEqual([100, 30, 0]);
    expect(snap.loadedBytes).toBe(130);
    expect(snap.percent).toBe(65);
  });

  it("keeps the server's per-file refusals and lists them in the summary", async () => {
    const { transport, requests } = manualTransport();
    const queue = new UploadQueue(transport, { filesPerRequest: 2, concurrency: 1, bytesPerRequest: 1000 });
    queue.add([file('ok.png', 10), file('wide.png', 10)]);
    const finished = queue.start();
    requests[0]!.resolve([{ ok: true }, { ok: false, reason: 'Aspect ratio must be under 6:1.' }]);
    await finished;
    expect(queue.summary()).toEqual({
      done: 1,
      refused: [{ name: 'wide.png', reason: 'Aspect ratio must be under 6:1.' }],
      failed: [],
    });
    expect(queue.acceptedNames()).toEqual(['ok.png']);
  });

  it('marks a failed request as failed and sends only those files again on retry', async () => {
    const { transport, requests } = manualTransport();
    const queue = new UploadQueue(transport, { filesPerRequest: 1, concurrency: 2, bytesPerRequest: 1000 });
    queue.add([file('a.png', 10), file('b.png', 10)]);
    const finished = queue.start();
    requests[0]!.resolve([{ ok: true }]);
    requests[1]!.progress(5);
    requests[1]!.reject(new Error('Cannot reach the server.'));
    await finished;
    expect(queue.summary().failed).toEqual([{ name: 'b.png', reason: 'Cannot reach the server.' }]);
    expect(queue.getSnapshot().items[1]!.loaded).toBe(0);

    const retried = queue.retryFailed();
    expect(requests).toHaveLength(3);
    expect(requests[2]!.names).toEqual(['b.png']);
    requests[2]!.resolve([{ ok: true }]);
    await retried;
    expect(queue.summary()).toEqual({ done: 2, refused: [], failed: [] });
  });

  it('resolves at once when there is nothing to send and notifies subscribers on change', async () => {
    const { transport } = manualTransport();
    const queue = new UploadQueue(transport);
    await queue.start();
    let calls = 0;
    const off = queue.subscribe(() => calls++);
    queue.add([file('a.png', 1)]);
    off();
    queue.clear();
    expect(calls).toBe(1);
    expect(queue.getSnapshot().items).toHaveLength(0);
  });

  it('stops: waiting files and the request in flight become failed, and retry sends them all', async () => {
    const requests: { names: string[]; signal: AbortSignal; resolve: (o: FileOutcome[]) => void }[] = [];
    const transport: Transport = (files, _progress, signal) =>
      new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')));
        requests.push({ names: files.map((f) => f.name), signal, resolve });
      });
    const queue = new UploadQueue(transport, { filesPerRequest: 1, concurrency: 1, bytesPerRequest: 1000 });
    queue.add([file('a.png', 1), file('b.png', 1), file('c.png', 1)]);
    const finished = queue.start();
    queue.cancel('Stopped.');
    await finished;
    expect(requests).toHaveLength(1);
    expect(queue.summary().failed.map((f) => f.name)).toEqual(['a.png', 'b.png', 'c.png']);
    expect(queue.summary().failed[1]!.reason).toBe('Stopped.');

    const retried = queue.retryFailed();
    expect(requests[1]!.names).toEqual(['a.png']);
    requests[1]!.resolve([{ ok: true }]);
    await tick();
    requests[2]!.resolve([{ ok: true }]);
    await tick();
    requests[3]!.resolve([{ ok: true }]);
    await retried;
    expect(queue.summary().done).toBe(3);
  });
});
