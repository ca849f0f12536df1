import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DeletedData, ModelCreateBody, ModelData, ModelListData, ModelListQuery, ModelParams, ModelPaths, ModelUpdateBody } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { createModel, deleteModel, getModel, listModels, updateModel } from '../services/models.js';

/** Model CRUD (SPEC §3 model, §5 model rules); every call is the signed-in user's own models. */
export function modelRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['models'];
    const preHandler = requireUser(deps);
    app.get(ModelPaths.list, { schema: { tags, querystring: ModelListQuery, response: responses(ModelListData) }, preHandler }, async (req) =>
      ok(await listModels(deps, userOf(req), req.query)),
    );
    app.post(ModelPaths.list, { schema: { tags, body: ModelCreateBody, response: responses(ModelData) }, preHandler }, async (req) =>
      ok(await createModel(deps, userOf(req), req.body)),
    );
    app.get(ModelPaths.one, { schema: { tags, params: ModelParams, response: responses(ModelData) }, preHandler }, async (req) =>
      ok(await getModel(deps, userOf(req), req.params.modelId)),
    );
    app.put(ModelPaths.one, { schema: { tags, params: ModelParams, body: ModelUpdateBody, response: responses(ModelData) }, preHandler }, async (req) =>
      ok(await updateModel(deps, userOf(req), req.params.modelId, req.body)),
    );
    app.delete(ModelPaths.one, { schema: { tags, params: ModelParams, response: responses(DeletedData) }, preHandler }, async (req) => {
      await deleteModel(deps, userOf(req), req.params.modelId);
      return ok({ deleted: 1 });
    });
  };
}
