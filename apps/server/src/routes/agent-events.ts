import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Model } from '../db/models.js';
import type { Deps } from '../services/deps.js';
import { agentDetail } from '../services/agent/agents.js';
import { isTerminalPhase, type AgentEvent } from '../services/agent/view.js';
import { openSse, sseFrame } from '../http/sse.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';

/**
 * SSE for one agent run: subscribes first (so nothing published during the replay is lost), replays the run,
 * every trial and every log entry, then forwards live events until a `run` in a terminal phase. Log entries
 * already replayed are not sent twice (they are counted).
 */
export async function streamAgentEvents(deps: Deps, model: Model, agentId: number, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const lang = pickLanguage(req.headers.language);
  const frame = (e: AgentEvent) => sseFrame(e.type, e.type === 'run' ? withFailuresIn(e.data, lang) : e.data);
  await agentDetail(deps, model, agentId);
  const live: AgentEvent[] = [];
  let send: ((e: AgentEvent) => void) | null = null;
  const unsubscribe = deps.agentEvents.subscribe(agentId, (e) => (send ? send(e) : live.push(e)));
  const sse = openSse(req, reply, unsubscribe);
  await deps.agentEvents.ready();

  const now = await agentDetail(deps, model, agentId);
  sse.write(frame({ type: 'run', data: now.run }));
  for (const t of now.trials) sse.write(frame({ type: 'trial', data: t }));
  for (const l of now.log) sse.write(frame({ type: 'log', data: l }));
  if (isTerminalPhase(now.run.phase)) return sse.end();
  const replayed = new Set(now.log.map((l) => `${l.at}|${l.key}|${l.text}`));
  send = (e) => {
    if (sse.ended) return;
    if (e.type === 'log' && replayed.has(`${e.data.at}|${e.data.key}|${e.data.text}`)) return;
    sse.write(frame(e));
    if (e.type === 'run' && isTerminalPhase(e.data.phase)) sse.end();
  };
  for (const e of live.splice(0)) send(e);
}
