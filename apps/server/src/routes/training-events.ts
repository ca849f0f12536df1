import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TrainingStatus } from '@loupe/contracts';
import type { Model } from '../db/models.js';
import type { Deps } from '../services/deps.js';
import type { TrainingEvent } from '../runner/bus.js';
import { getTraining } from '../services/training/trainings.js';
import { openSse, sseFrame } from '../http/sse.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';

const TERMINAL: TrainingStatus[] = ['succeeded', 'failed', 'cancelled'];


/**
 * SSE for one training: subscribes first (so nothing published during the replay is lost), replays the
 * epochs after Last-Event-ID and the current state, then forwards live events until a terminal state.
 */
export async function streamTrainingEvents(deps: Deps, model: Model, trainingId: number, after: number, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const lang = pickLanguage(req.headers.language);
  // A state's failure reason in the subscriber's language.
  const frame = (e: TrainingEvent) => (e.type === 'progress' ? sseFrame(e.type, e.data, e.id) : sseFrame(e.type, withFailuresIn(e.data, lang)));
  const start = await getTraining(deps, model, trainingId);
  const live: TrainingEvent[] = [];
  let send: ((e: TrainingEvent) => void) | null = null;
  const unsubscribe = deps.trainingEvents.subscribe(trainingId, (e) => (send ? send(e) : live.push(e)));
  const sse = openSse(req, reply, unsubscribe);
  // Over Redis a subscription is live once acknowledged: only then is the replay below sure to meet it.
  await deps.trainingEvents.ready();

  let lastEpoch = after;
  for (const e of await deps.trainings.epochs(trainingId, after)) {
    lastEpoch = e.epoch;
    const data = { phase: 'training' as const, epoch: e.epoch, epochs: e.epochs, metrics: JSON.parse(e.metrics) as Record<string, unknown>, etaS: e.eta_s };
    sse.write(frame({ type: 'progress', id: e.epoch, data }));
  }
  const now = await getTraining(deps, model, trainingId).catch(() => start);
  sse.write(frame({ type: 'state', data: { status: now.status, error: now.error } }));
  if (TERMINAL.includes(now.status)) return sse.end();

  send = (e) => {
    if (sse.ended) return;
    // Epochs already replayed from the database are not sent twice.
    if (e.type === 'progress' && e.id !== undefined && e.id <= lastEpoch) return;
    if (e.type === 'progress' && e.id !== undefined) lastEpoch = e.id;
    sse.write(frame(e));
    if (e.type === 'state' && TERMINAL.includes(e.data.status)) sse.end();
  };
  for (const e of live.splice(0)) send(e);
}
