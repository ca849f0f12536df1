import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UsageData, UsagePaths, UsageQuery } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { usageOf } from '../services/usage.js';

/** /usage: the signed-in user's own ledger of trainings, tests and exports (SPEC /usage). */
export function usageRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(UsagePaths.usage, { schema: { tags: ['usage'], querystring: UsageQuery, response: responses(UsageData) }, preHandler: requireUser(deps) }, async (req) =>
      ok(await usageOf(deps, userOf(req).id, req.query)),
    );
  };
}
