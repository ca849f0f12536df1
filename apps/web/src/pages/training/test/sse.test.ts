import { describe, expect, it, vi } from 'vitest';
import { SseParser } from '../sse/sseParser';
import { openEventStream, type EventStreamOptions } from '../sse/eventStream';

describe('SseParser', () => {
  it('reads events, ids and multi-line data across chunk boundaries', () => {
    const p = new SseParser();
    expect(p.feed('id: 1\nevent: progress\nda')).toEqual([]);
    expect(p.feed('ta: {"epoch":1}\n\nid: 2\nevent: progress\ndata: a\ndata: b\n')).toEqual([
      { type: 'progress', data: '{"epoch":1}', lastEventId: '1' },
    ]);
    expect(p.feed('\n')).toEqual([{ type: 'progress', data: 'a\nb', lastEventId: '2' }]);
    expect(p.lastEventId).toBe('2');
  });

  it('accepts CRLF and CR line ends, also when a CR ends one chunk and its LF starts the next', () => {
    const p = new SseParser();
    expect(p.feed('event: state\r')).toEqual([]);
    expect(p.feed('\ndata: x\r\n\r')).toEqual([{ type: 'state', data: 'x', lastEventId: '' }]);
    // The LF after that CR is not a second blank line, and a bare CR ends a line as well.
    expect(p.feed('\ndata: y\r\r')).toEqual([{ type: 'message', data: 'y', lastEventId: '' }]);
  });

  it('ignores comments (keepalives) and events without data; keeps the id of earlier events', () => {
    const p = new SseParser('7');
    expect(p.feed(': keepalive\n\nevent: state\n\nretry: 2500\ndata: z\n\n')).toEqual([{ type: 'message', data: 'z', lastEventId: '7' }]);
    expect(p.retryMs).toBe(2500);
  });

  it('drops an unfinished event when the connection closes', () => {
    const p = new SseParser();
    p.feed('event: progress\ndata: half');
    p.reset();
    expect(p.feed('data: next\n\n')).toEqual([{ type: 'message', data: 'next', lastEventId: '' }]);
  });
});

/** A streamed response the test writes to, chunk by chunk, then ends or breaks. */
function streamResponse() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  const enc = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } }),
    write: (text: string) => ctrl.enqueue(enc.encode(text)),
    end: () => ctrl.close(),
    fail: () => ctrl.error(new TypeError('network error')),
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function harness(overrides: Partial<EventStreamOptions> = {}) {
  const requests: { headers: Record<string, string> }[] = [];
  const answers: (() => Promise<Response>)[] = [];
  const fetchImpl = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ headers: init?.headers as Record<string, string> });
    const next = answers.shift();
    if (!next) return new Promise<Response>(() => undefined);
    return next();
  });
  const delays: number[] = [];
  const events: string[] = [];
  const fatal = vi.fn();
  const handle = () =>
    openEventStream({
      url: '/api/models/5/trainings/9/events',
      headers: () => ({ 'X-Token': 'tok' }),
      onEvent: (e) => {
        events.push(`${e.type}:${e.data}`);
        return e.type === 'state' && e.data === 'succeeded' ? 'end' : 'continue';
      },
      onFatal: fatal,
      fetchImpl: fetchImpl as unknown as typeof fetch,
      sleep: async (ms) => void delays.push(ms),
      ...overrides,
    });
  return { requests, answers, delays, events, fatal, handle, fetchImpl };
}

describe('openEventStream', () => {
  it('sends the token, reconnects with Last-Event-ID after a drop, and stops at the end the handler names', async () => {
    const h = harness();
    const first = streamResponse();
    const second = streamResponse();
    h.answers.push(async () => first.response, async () => second.response);
    const stream = h.handle();
    await flush();
    first.write('id: 1\nevent: progress\ndata: e1\n\nid: 2\nevent: progress\ndata: e2\n\n');
    await flush();
    first.fail();
    await flush();
    await flush();
    second.write('id: 3\nevent: progress\ndata: e3\n\nevent: state\ndata: succeeded\n\n');
    await stream.done;

    expect(h.events).toEqual(['progress:e1', 'progress:e2', 'progress:e3', 'state:succeeded']);
    expect(h.requests[0]!.headers).toMatchObject({ 'X-Token': 'tok', Accept: 'text/event-stream' });
    expect(h.requests[0]!.headers['Last-Event-ID']).toBeUndefined();
    expect(h.requests[1]!.headers['Last-Event-ID']).toBe('2');
    expect(h.requests).toHaveLength(2);
    expect(stream.lastEventId()).toBe('3');
  });

  it('backs off while the server is unreachable and starts over once events flow again', async () => {
    const h = harness({ retryMs: 100, maxRetryMs: 500 });
    const ok = streamResponse();
    const down = async () => Promise.reject(new TypeError('offline'));
    const busy = async () => new Response('bad gateway', { status: 502 });
    h.answers.push(down, busy, down, down, down, async () => ok.response);
    const stream = h.handle();
    await vi.waitFor(() => expect(h.requests).toHaveLength(6));
    ok.write('id: 4\nevent: progress\ndata: e4\n\n');
    await flush();
    ok.end();
    await vi.waitFor(() => expect(h.requests).toHaveLength(7));
    stream.close();
    await stream.done;
    expect(h.delays).toEqual([100, 200, 400, 500, 500, 100]);
    expect(h.requests[6]!.headers['Last-Event-ID']).toBe('4');
  });

  it('follows the retry the server asks for', async () => {
    const h = harness();
    const ok = streamResponse();
    h.answers.push(async () => ok.response);
    const stream = h.handle();
    await flush();
    ok.write('retry: 3000\n\n');
    ok.end();
    await vi.waitFor(() => expect(h.delays).toEqual([3000]));
    stream.close();
    await stream.done;
  });

  it('gives up on a refusal and reports the envelope', async () => {
    const h = harness();
    const envelope = { code: 99990, message: 'Session expired', data: null };
    h.answers.push(async () => new Response(JSON.stringify(envelope), { status: 401, headers: { 'content-type': 'application/json' } }));
    const stream = h.handle();
    await stream.done;
    expect(h.fatal).toHaveBeenCalledWith({ status: 401, body: envelope });
    expect(h.requests).toHaveLength(1);
  });

  it('resumes from a given id and stops quietly on close', async () => {
    const h = harness({ lastEventId: '12' });
    const ok = streamResponse();
    h.answers.push(async () => ok.response);
    const stream = h.handle();
    await flush();
    stream.close();
    await stream.done;
    expect(h.requests[0]!.headers['Last-Event-ID']).toBe('12');
    expect(h.fatal).not.toHaveBeenCalled();
    expect(h.delays).toEqual([]);
  });
});
