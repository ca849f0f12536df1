import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DatasetPaths, DeletedData, LabelCreateBody, LabelData, LabelParams, LabelUpdateBody, ModelParams } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { createLabel, deleteLabel, listLabels, updateLabel } from '../services/labels.js';

/** Labels of a model (SPEC §3 label, §5 label rules). */
export function labelRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['labels'];
    const preHandler = requireUser(deps);
    app.get(DatasetPaths.labels, { schema: { tags, params: ModelParams, response: responses(Type.Array(LabelData)) }, preHandler }, async (req) =>
      ok(await listLabels(deps, await ownModel(deps, userOf(req), req.params.modelId))),
    );
    app.post(DatasetPaths.labels, { schema: { tags, params: ModelParams, body: LabelCreateBody, response: responses(LabelData) }, preHandler }, async (req) =>
      ok(await createLabel(deps, await ownModel(deps, userOf(req), req.params.modelId), req.body)),
    );
    app.put(DatasetPaths.label, { schema: { tags, params: LabelParams, body: LabelUpdateBody, response: responses(LabelData) }, preHandler }, async (req) =>
      ok(await updateLabel(deps, await ownModel(deps, userOf(req), req.params.modelId), req.params.labelId, req.body)),
    );
    app.delete(DatasetPaths.label, { schema: { tags, params: LabelParams, response: responses(DeletedData) }, preHandler }, async (req) => {
      await deleteLabel(deps, await ownModel(deps, userOf(req), req.params.modelId), req.params.labelId);
      return ok({ deleted: 1 });
    });
  };
}
