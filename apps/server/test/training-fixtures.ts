import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { TrainingData, TrainingDetailData } from '@loupe/contracts';
import { call, type Reply } from './helper.js';
import { save, studio, type Studio } from './labeling-fixtures.js';

export const trainingsUrl = (modelId: number) => `/api/models/${modelId}/trainings`;
export const trainingUrl = (modelId: number, id: number) => `/api/models/${modelId}/trainings/${id}`;

/**
 * What every training that a test needs to have learned states, so that it trains the same way on every host:
 * float32 (amp=true trains in bfloat16 on a CPU with AMX and in float32 elsewhere, and the two reach different
 * weights: issue 30's packs test found no box on an AMD EPYC without AMX), and one process whatever the core count
 * (procs=0 chooses by the cores). Each such fixture also states its model size (auto follows the host) and a seed.
 */
export const SAME_ON_EVERY_HOST = { amp: false, procs: 1 } as const;

/** The smallest run the engine has: pico model, 64 px, one epoch, no mosaic (4 images per batch). */
export const TINY = { model: 'p', imgsz: 64, epochs: 1, batch: 4, mosaic: 0, workers: 0, warmup_epochs: 0 };

/**
 * A detection model with `count` labeled 64×64 images (one box each), split 8 train / rest valid
 * unless `split` is false: what the training page starts from.
 */
export async function labeledStudio(app: FastifyInstance, token: string, opts: { count?: number; split?: boolean } = {}): Promise<Studio> {
  const count = opts.count ?? 12;
  const s = await studio(app, token, { count, size: [64, 64], labels: ['scratch'] });
  for (const [i, id] of s.images.entries()) {
    const x = 4 + (i % 5) * 6;
    const r = await save(app, token, s, id, 0, [{ labelId: s.labels.scratch!, geometry: { kind: 'box', x1: x, y1: x, x2: x + 24, y2: x + 20 } }]);
    expect(r.code, r.message).toBe(0);
  }
  if (opts.split !== false) {
    const train = s.images.slice(0, Math.ceil((count * 2) / 3));
    const valid = s.images.slice(train.length);
    for (const [ids, split] of [[train, 'train'], [valid, 'valid']] as const) {
      const r = await call(app, 'POST', `/api/models/${s.model.id}/images/split`, { ids, split }, { token });
      expect(r.code, r.message).toBe(0);
    }
  }
  return s;
}

export function start(app: FastifyInstance, token: string, modelId: number, params: Record<string, unknown> = TINY, lang?: string): Promise<Reply<TrainingData>> {
  return call<TrainingData>(app, 'POST', trainingsUrl(modelId), { params }, { token, ...(lang ? { lang } : {}) });
}

export async function detail(app: FastifyInstance, token: string, modelId: number, id: number): Promise<TrainingDetailData> {
  const r = await call<TrainingDetailData>(app, 'GET', trainingUrl(modelId, id), undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

/** Polls the record until `until` holds (the engine runs in its own process; this only waits for it). */
export async function waitFor(app: FastifyInstance, token: string, modelId: number, id: number, until: (t: TrainingDetailData) => boolean, timeoutMs = 45_000): Promise<TrainingDetailData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const t = await detail(app, token, modelId, id);
    if (until(t)) return t;
    if (Date.now() > deadline) throw new Error(`training ${id} stuck in ${t.status} (${t.error ?? ''})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface SseEvent {
  id?: string;
  event: string;
  data: unknown;
}

/** Parses a whole text/event-stream body into its events (comments skipped). */
export function parseSse(body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) => {
      const e: SseEvent = { event: 'message', data: null };
      for (const line of block.split('\n')) {
        const [key, ...rest] = line.split(': ');
        const value = rest.join(': ');
        if (key === 'id') e.id = value;
        if (key === 'event') e.event = value;
        if (key === 'data') e.data = JSON.parse(value);
      }
      return e;
    });
}

/** labeledStudio after one TINY training that succeeded (of rotated boxes if asked): what the test page starts from. */
export async function trainedStudio(app: FastifyInstance, token: string, opts: { count?: number; rotated?: boolean } = {}): Promise<Studio & { trainingId: number }> {
  const s = await labeledStudio(app, token, opts);
  const r = await call<TrainingData>(app, 'POST', trainingsUrl(s.model.id), { params: TINY, ...(opts.rotated ? { rotated: true } : {}) }, { token });
  expect(r.code, r.message).toBe(0);
  const done = await waitFor(app, token, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
  expect(done.status, done.error ?? '').toBe('succeeded');
  return { ...s, trainingId: r.data.id };
}
