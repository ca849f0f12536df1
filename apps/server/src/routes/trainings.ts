import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ModelParams, PretrainedListData, ResumePaths, TrainingDetailData, TrainingEstimateData, TrainingListData, TrainingParamsPath, TrainingPaths, TrainingStartBody, TrainingData } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { listPretrained } from '../services/training/pretrained.js';
import { estimateTraining } from '../services/training/estimate.js';
import { resumeTraining } from '../services/training/resume.js';
import { listTrainings, startTraining, stopTraining, trainingDetail } from '../services/training/trainings.js';
import { streamTrainingEvents } from './training-events.js';

/** Trainings of a model (SPEC §2 /train): start, list, one with its epochs, stop, resume, and the live SSE stream. */
export function trainingRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['trainings'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    app.post(TrainingPaths.list, { schema: { tags, params: ModelParams, body: TrainingStartBody, response: responses(TrainingData) }, preHandler }, async (req) =>
      ok(await startTraining(deps, userOf(req), await model(req), req.body, pickLanguage(req.headers.language))),
    );
    // Issue 31: the plan, time and warnings of a start with these parameters, nothing written (SDK and /train agree).
    app.post(TrainingPaths.estimate, { schema: { tags, params: ModelParams, body: TrainingStartBody, response: responses(TrainingEstimateData) }, preHandler }, async (req) =>
      ok(await estimateTraining(deps, await model(req), req.body, pickLanguage(req.headers.language))),
    );
    // The versions `pretrained` may name: the caller's own, across their models.
    app.get(TrainingPaths.pretrained, { schema: { tags, response: responses(PretrainedListData) }, preHandler }, async (req) => ok(await listPretrained(deps, userOf(req).id)));
    app.get(TrainingPaths.list, { schema: { tags, params: ModelParams, response: responses(TrainingListData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await listTrainings(deps, await model(req)), pickLanguage(req.headers.language))),
    );
    app.get(TrainingPaths.one, { schema: { tags, params: TrainingParamsPath, response: responses(TrainingDetailData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await trainingDetail(deps, await model(req), req.params.trainingId), pickLanguage(req.headers.language))),
    );
    app.post(ResumePaths.resume, { schema: { tags, params: TrainingParamsPath, response: responses(TrainingData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await resumeTraining(deps, userOf(req), await model(req), req.params.trainingId), pickLanguage(req.headers.language))),
    );
    app.post(TrainingPaths.stop, { schema: { tags, params: TrainingParamsPath, response: responses(TrainingData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await stopTraining(deps, await model(req), req.params.trainingId), pickLanguage(req.headers.language))),
    );
    app.get(TrainingPaths.events, { schema: { tags, params: TrainingParamsPath }, preHandler }, async (req, reply) => {
      const m = await model(req);
      const last = Number(req.headers['last-event-id'] ?? 0);
      await streamTrainingEvents(deps, m, req.params.trainingId, Number.isInteger(last) && last > 0 ? last : 0, req, reply);
    });
  };
}
