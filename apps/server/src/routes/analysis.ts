import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AgentPaths, AnalysisFixBody, AnalysisFixData, AnalysisParamsPath, AnalysisStartBody, DatasetAnalysisData, ModelParams } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { applyFix } from '../services/analysis/fix.js';
import { getAnalysis, startAnalysis } from '../services/analysis/requests.js';

/** Dataset analysis of a model's data (issue 35, AgentPaths.analysis and analysisFix): the latest, a new one, a fix. */
export function analysisRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['analysis'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    app.get(AgentPaths.analysis, { schema: { tags, params: ModelParams, response: responses(DatasetAnalysisData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await getAnalysis(deps, await model(req)), pickLanguage(req.headers.language))),
    );
    app.post(AgentPaths.analysis, { schema: { tags, params: ModelParams, body: AnalysisStartBody, response: responses(DatasetAnalysisData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await startAnalysis(deps, userOf(req), await model(req), req.body ?? {}), pickLanguage(req.headers.language))),
    );
    app.post(AgentPaths.analysisFix, { schema: { tags, params: AnalysisParamsPath, body: AnalysisFixBody, response: responses(AnalysisFixData) }, preHandler }, async (req) =>
      ok(await applyFix(deps, await model(req), req.params.analysisId, req.body.fix)),
    );
  };
}
