import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuthPaths, HealthData, PublicConfig } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import type { Deps } from '../services/deps.js';

/** What the public pages read before sign-in, and the liveness probe. */
export function systemRoutes(deps: Deps, version: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['system'];
    app.get(AuthPaths.config, { schema: { tags, response: responses(PublicConfig) } }, async () =>
      ok({ deployment: deps.config.deployment, oidc: deps.config.oidc !== null, version }),
    );
    app.get(AuthPaths.health, { schema: { tags, response: responses(HealthData) } }, async () => {
      await deps.users.hasAdmin(); // touches the database, so a broken connection shows here
      return ok({ status: 'ok' as const });
    });
  };
}
