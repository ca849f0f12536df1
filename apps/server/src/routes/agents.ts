import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { IncomingHttpHeaders } from 'node:http';
import { AgentParamsPath, AgentPaths, AgentRunData, AgentRunDetailData, AgentRunListData, AgentStartBody, ModelParams } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { agentDetail, listAgents, startAgent, stopAgent } from '../services/agent/agents.js';
import { streamAgentEvents } from './agent-events.js';

/** Agent runs of a model (issue 35, AgentPaths list, one, stop, events): every route on the caller's own model. */
export function agentRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['agents'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);
    const lang = (req: { headers: IncomingHttpHeaders }) => pickLanguage(req.headers.language);

    app.post(AgentPaths.list, { schema: { tags, params: ModelParams, body: AgentStartBody, response: responses(AgentRunData) }, preHandler }, async (req) =>
      ok(await startAgent(deps, userOf(req), await model(req), req.body, lang(req))),
    );
    app.get(AgentPaths.list, { schema: { tags, params: ModelParams, response: responses(AgentRunListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await listAgents(deps, await model(req)), lang(req))),
    );
    app.get(AgentPaths.one, { schema: { tags, params: AgentParamsPath, response: responses(AgentRunDetailData) }, preHandler }, async (req) => {
      const d = await agentDetail(deps, await model(req), req.params.agentId);
      return ok({ ...d, run: withFailuresIn(d.run, lang(req)) });
    });
    app.post(AgentPaths.stop, { schema: { tags, params: AgentParamsPath, response: responses(AgentRunData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await stopAgent(deps, await model(req), req.params.agentId), lang(req))),
    );
    app.get(AgentPaths.events, { schema: { tags, params: AgentParamsPath }, preHandler }, async (req, reply) => {
      await streamAgentEvents(deps, await model(req), req.params.agentId, req, reply);
    });
  };
}
