import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ModelParams,
  TrainingParamsPath,
  VersionCompareData,
  VersionCompareQuery,
  VersionData,
  VersionDefaultBody,
  VersionListData,
  VersionNoteBody,
  VersionPaths,
} from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { compareVersions, deleteVersion, listVersions, setDefaultVersion, setVersionNote } from '../services/versions.js';

/**
 * A model's versions (SPEC §2 /modelManagement, /train2): list, default version, note, delete, compare. Every
 * call goes through ownModel: another account's model, or a version of it, answers notFound like a missing one.
 */
export function versionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['versions'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);
    const lang = (req: { headers: Record<string, string | string[] | undefined> }) => pickLanguage(req.headers.language);

    app.get(VersionPaths.list, { schema: { tags, params: ModelParams, response: responses(VersionListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await listVersions(deps, await model(req)), lang(req))),
    );
    app.put(VersionPaths.default, { schema: { tags, params: ModelParams, body: VersionDefaultBody, response: responses(VersionListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await setDefaultVersion(deps, await model(req), req.body.trainingId), lang(req))),
    );
    app.get(VersionPaths.compare, { schema: { tags, params: ModelParams, querystring: VersionCompareQuery, response: responses(VersionCompareData) }, preHandler }, async (req) => {
      const data = await compareVersions(deps, await model(req), req.query.a, req.query.b);
      return ok({ ...data, a: withFailuresIn(data.a, lang(req)), b: withFailuresIn(data.b, lang(req)) });
    });
    app.put(VersionPaths.note, { schema: { tags, params: TrainingParamsPath, body: VersionNoteBody, response: responses(VersionData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await setVersionNote(deps, await model(req), req.params.trainingId, req.body.note), lang(req))),
    );
    app.delete(VersionPaths.one, { schema: { tags, params: TrainingParamsPath, response: responses(VersionListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await deleteVersion(deps, await model(req), req.params.trainingId), lang(req))),
    );
  };
}
