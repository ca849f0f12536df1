import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../services/deps.js';

/** Agent runs of a model (issue 35, AgentPaths list, one, stop, events). Being built. */
export function agentRoutes(_deps: Deps): FastifyPluginAsyncTypebox {
  return async () => {};
}
