import { vi } from 'vitest';
import type { AgentLogEntry, AgentRunData, AgentTrial } from '@loupe/contracts';
import { MODEL_ID } from '@/pages/training/test/fixtures';

export function agentRun(patch: Partial<AgentRunData> = {}): AgentRunData {
  return {
    id: 7,
    modelId: MODEL_ID,
    phase: 'complete',
    budgetS: 3600,
    plan: { initialising: 180, tuning: 1080, training: 1620, testing: 180, retraining: 540 },
    etaS: null,
    recallTarget: 0.95,
    ngLabelIds: [1, 2],
    earlyStop: 5,
    analysisId: 3,
    baseParams: { imgsz: 640 },
    chosenParams: { imgsz: 640, lr0: 0.005 },
    adopted: true,
    trainingIds: [11, 12],
    bestTrainingId: 12,
    testRunIds: [21, 22],
    error: null,
    createdAt: '2026-01-01T10:00:00.000Z',
    startedAt: '2026-01-01T10:00:01.000Z',
    endedAt: '2026-01-01T11:00:00.000Z',
    ...patch,
  };
}

export const trial = (number: number, state: AgentTrial['state'], score: number | null): AgentTrial => ({
  number,
  params: { lr0: 0.0123, mosaic: 0.5, optimizer: 'SGD' },
  state,
  score,
  epochs: 4,
  durationS: score === null ? null : 42,
});

export const logEntry = (phase: AgentLogEntry['phase'], text: string, key = 'phase'): AgentLogEntry => ({
  at: '2026-01-01T10:00:05.000Z',
  phase,
  text,
  key,
  params: {},
});

/** A text/event-stream response the test writes agent events to. */
export function agentStream() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  const enc = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    send: (type: 'run' | 'trial' | 'log', data: unknown) => ctrl.enqueue(enc.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`)),
    end: () => ctrl.close(),
  };
}

/** Route the agent's events path to `stream`; everything else to the mock server installed before. */
export function serveAgentEvents(stream: () => Response | Promise<Response>) {
  const inner = globalThis.fetch;
  const calls: string[] = [];
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (/\/agents\/\d+\/events$/.test(url)) {
      calls.push(url);
      return stream();
    }
    return inner(url, init);
  });
  return calls;
}
