import type { TestImageData, TestRunData } from '@loupe/contracts';
import { vi } from 'vitest';
import type { Call } from '@/pages/auth/test/harness';

export function testRun(patch: Partial<TestRunData> = {}): TestRunData {
  return {
    id: 9,
    modelId: 5,
    trainingId: 11,
    version: 'v1',
    status: 'succeeded',
    source: 'testSplit',
    settings: { conf: 0.25, iou: 0.7, half: false, agnostic: false, tta: 'off' },
    imageCount: 2,
    done: 2,
    summary: null,
    tp: 1,
    fp: 1,
    fn: 1,
    error: null,
    startedAt: '2026-01-02T00:00:00.000Z',
    endedAt: '2026-01-02T00:01:00.000Z',
    ...patch,
  };
}

export function testImage(imageId: number, patch: Partial<TestImageData> = {}): TestImageData {
  return {
    imageId,
    name: `img-${imageId}.jpg`,
    width: 400,
    height: 300,
    thumbUrl: `/api/models/5/images/${imageId}/thumbnail`,
    imageUrl: `/api/models/5/images/${imageId}/original`,
    predictions: [],
    groundTruth: [],
    classification: null,
    tp: 0,
    fp: 0,
    fn: 0,
    ...patch,
  };
}

export type Handler = (url: URL, init: RequestInit) => Response | Promise<Response> | undefined;

export const envelope = (data: unknown, code = 0, message = 'ok') =>
  new Response(JSON.stringify({ code, message, data }), { status: code === 0 ? 200 : 400, headers: { 'content-type': 'application/json' } });

/** fetch answered by `handler` ("METHOD /path" decides), every call recorded; unknown calls get a 404 envelope. */
export function fakeFetch(handler: (key: string, url: URL, init: RequestInit) => Response | Promise<Response> | undefined) {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (input: string, init: RequestInit = {}) => {
    const url = new URL(input, 'http://loupe.test');
    const method = init.method ?? 'GET';
    calls.push({ method, url: input, body: typeof init.body === 'string' ? JSON.parse(init.body) : null, headers: (init.headers ?? {}) as Record<string, string> });
    const res = await handler(`${method} ${url.pathname}`, url, init);
    return res ?? envelope(null, 20004, `no mock for ${method} ${url.pathname}`);
  });
  return calls;
}

/** An SSE response whose frames the test pushes; `end()` closes it like the server after a terminal state. */
export function sseStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
  return {
    response: () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    send: (event: string, data: unknown) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    end: () => controller.close(),
  };
}
