import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TrainingStatus } from '@loupe/contracts';
import type { Model } from '../db/models.js';
import type { Deps } from '../services/deps.js';
import type { TrainingEvent } from '../runner/bus.js';
import { getTraining } from '../services/training/trainings.js';

const TERMINAL: TrainingStatus[] = ['succeeded', 'failed', 'cancelled'];
/** A comment line now and then keeps proxies from closing a quiet stream during a long epoch. */
const KEEPALIVE_MS = 15_000;

function frame(e: TrainingEvent): string {
  const id = e.type === 'progress' && e.id !== undefined ? `id: ${e.id}\n` : '';
  return `${id}event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * SSE for one training: subscribes first (so nothing published during the replay is lost), replays the
 * epochs after Last-Event-ID and the current state, then forwards live events until a terminal state.
 */
export async function streamTrainingEvents(deps: Deps, model: Model, trainingId: number, after: number, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const start = await getTraining(deps, model, trainingId);
  const live: TrainingEvent[] = [];
  let send: ((e: TrainingEvent) => void) | null = null;
  const unsubscribe = deps.trainingEvents.subscribe(trainingId, (e) => (send ? send(e) : live.push(e)));

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  let ended = false;
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  const end = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(keepalive);
    res.end();
  };
  req.raw.on('close', end);

  let lastEpoch = after;
  for (const e of await deps.trainings.epochs(trainingId, after)) {
    lastEpoch = e.epoch;
    const data = { phase: 'training' as const, epoch: e.epoch, epochs: e.epochs, metrics: JSON.parse(e.metrics) as Record<string, unknown>, etaS: e.eta_s };
    res.write(frame({ type: 'progress', id: e.epoch, data }));
  }
  const now = await getTraining(deps, model, trainingId).catch(() => start);
  res.write(frame({ type: 'state', data: { status: now.status, error: now.error } }));
  if (TERMINAL.includes(now.status)) return end();

  send = (e) => {
    if (ended) return;
    // Epochs already replayed from the database are not sent twice.
    if (e.type === 'progress' && e.id !== undefined && e.id <= lastEpoch) return;
    if (e.type === 'progress' && e.id !== undefined) lastEpoch = e.id;
    res.write(frame(e));
    if (e.type === 'state' && TERMINAL.includes(e.data.status)) end();
  };
  for (const e of live.splice(0)) send(e);
}
