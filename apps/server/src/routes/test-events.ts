import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TestProgressEvent, TestRunData } from '@loupe/contracts';
import type { Model } from '../db/models.js';
import type { Deps } from '../services/deps.js';
import type { TestEvent } from '../runner/bus.js';
import { openSse, sseFrame } from '../http/sse.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import { isTerminal } from '../services/testing/state.js';
import { getTest } from '../services/testing/tests.js';

function progressOf(t: TestRunData): TestProgressEvent {
  const phase = t.status === 'queued' ? 'queued' : t.status === 'preparing' ? 'preparing' : 'testing';
  return { phase, done: t.done, total: t.imageCount };
}

/**
 * SSE for one test run: subscribes first (so nothing published during the replay is lost), replays the
 * current progress and state, then forwards live events until a terminal state. Progress is a whole count,
 * so a reconnecting client needs nothing but this replay.
 */
export async function streamTestEvents(deps: Deps, model: Model, testId: number, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const start = await getTest(deps, model, testId);
  const live: TestEvent[] = [];
  let send: ((e: TestEvent) => void) | null = null;
  const unsubscribe = deps.testEvents.subscribe(testId, (e) => (send ? send(e) : live.push(e)));
  const sse = openSse(req, reply, unsubscribe);
  // Over Redis a subscription is live once acknowledged: only then is the replay below sure to meet it.
  await deps.testEvents.ready();

  const now = await getTest(deps, model, testId).catch(() => start);
  sse.write(sseFrame('progress', progressOf(now)));
  const lang = pickLanguage(req.headers.language);
  sse.write(sseFrame('state', withFailuresIn({ status: now.status, error: now.error }, lang)));
  if (isTerminal(now.status)) return sse.end();

  send = (e) => {
    // A state's failure reason in the subscriber's language.
    sse.write(e.type === 'state' ? sseFrame(e.type, withFailuresIn(e.data, lang)) : sseFrame(e.type, e.data));
    if (e.type === 'state' && isTerminal(e.data.status)) sse.end();
  };
  for (const e of live.splice(0)) send(e);
}
