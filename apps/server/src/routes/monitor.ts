import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ModelParams, MonitorData, MonitorPaths } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { modelMonitor } from '../services/monitor.js';

/** /monitor (issue 31 item 3): the open model's running and queued jobs with the engine's figures, and its job history. */
export function monitorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(MonitorPaths.model, { schema: { tags: ['monitor'], params: ModelParams, response: responses(MonitorData) }, preHandler: requireUser(deps) }, async (req) =>
      // Another user's model answers the same not-found as a missing one (ownModel).
      ok(await modelMonitor(deps, await ownModel(deps, userOf(req), req.params.modelId), pickLanguage(req.headers.language))),
    );
  };
}
