import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AgentPaths, ModelParams, TestAnalysisData, TestImagesData, TestImagesQuery, TestParamsPath, TestPaths, TestRunData, TestRunListData, TestStartBody } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { testAnalysis } from '../services/testing/analysis.js';
import { testRunImages } from '../services/testing/images.js';
import { getTest, listTests, startTest, stopTest } from '../services/testing/tests.js';
import { streamTestEvents } from './test-events.js';

/** ?conf= of a run's analysis (the run's own conf when absent; below it is refused in the service). */
const TestAnalysisQuery = Type.Object({ conf: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })) });

/**
 * Test runs of a model (SPEC §2 /test, /testImage): start, list, one, stop, its images, the live SSE stream and
 * the analysis of a finished run (issue 35).
 */
export function testRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['tests'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    app.post(TestPaths.list, { schema: { tags, params: ModelParams, body: TestStartBody, response: responses(TestRunData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await startTest(deps, userOf(req), await model(req), req.body), pickLanguage(req.headers.language))),
    );
    app.get(TestPaths.list, { schema: { tags, params: ModelParams, response: responses(TestRunListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await listTests(deps, await model(req)), pickLanguage(req.headers.language))),
    );
    app.get(TestPaths.one, { schema: { tags, params: TestParamsPath, response: responses(TestRunData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await getTest(deps, await model(req), req.params.testId), pickLanguage(req.headers.language))),
    );
    app.post(TestPaths.stop, { schema: { tags, params: TestParamsPath, response: responses(TestRunData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await stopTest(deps, await model(req), req.params.testId), pickLanguage(req.headers.language))),
    );
    app.get(TestPaths.images, { schema: { tags, params: TestParamsPath, querystring: TestImagesQuery, response: responses(TestImagesData) }, preHandler }, async (req) =>
      ok(await testRunImages(deps, await model(req), req.params.testId, req.query)),
    );
    app.get(AgentPaths.testAnalysis, { schema: { tags, params: TestParamsPath, querystring: TestAnalysisQuery, response: responses(TestAnalysisData) }, preHandler }, async (req) =>
      ok(await testAnalysis(deps, await model(req), req.params.testId, req.query.conf)),
    );
    app.get(TestPaths.events, { schema: { tags, params: TestParamsPath }, preHandler }, async (req, reply) => {
      await streamTestEvents(deps, await model(req), req.params.testId, req, reply);
    });
  };
}
