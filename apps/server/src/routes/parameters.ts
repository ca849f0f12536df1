import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ModelParams, ParameterPaths, SavedParamsData, SaveParamsBody } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { getSavedParams, resetParams, saveParams } from '../services/training/parameters.js';

/** Saved training parameters of a model (SPEC §2 /parameter): read, save, reset to the defaults. */
export function parameterRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['parameters'];
    const preHandler = requireUser(deps);
    const schema = { tags, params: ModelParams, response: responses(SavedParamsData) };
    app.get(ParameterPaths.params, { schema, preHandler }, async (req) => ok(getSavedParams(await ownModel(deps, userOf(req), req.params.modelId))));
    app.put(ParameterPaths.params, { schema: { ...schema, body: SaveParamsBody }, preHandler }, async (req) => {
      const user = userOf(req);
      return ok(await saveParams(deps, user, await ownModel(deps, user, req.params.modelId), req.body, pickLanguage(req.headers.language)));
    });
    app.delete(ParameterPaths.params, { schema, preHandler }, async (req) => ok(await resetParams(deps, await ownModel(deps, userOf(req), req.params.modelId))));
  };
}
