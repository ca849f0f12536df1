import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../services/deps.js';

/** Dataset analysis of a model's data (issue 35, AgentPaths.analysis and analysisFix). Being built. */
export function analysisRoutes(_deps: Deps): FastifyPluginAsyncTypebox {
  return async () => {};
}
