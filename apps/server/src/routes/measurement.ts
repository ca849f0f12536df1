import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  CalibrationBody,
  CalibrationData,
  GoldenBody,
  GoldenJobData,
  GoldenJobParams,
  MeasurementImagesData,
  MeasurementImagesQuery,
  MeasurementPaths,
  ModelParams,
  TestParamsPath,
  Tolerances,
  TolerancesData,
} from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import { pickLanguage, withFailuresIn } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { goldenJob, queueGolden } from '../services/measurement/golden.js';
import { measurementResults } from '../services/measurement/results.js';
import { deleteCalibration, deleteTolerances, getCalibration, getTolerances, putCalibration, putTolerances } from '../services/measurement/settings.js';

/** A MEASURE model's calibration, tolerances, golden-sample proposals and judged test results. */
export function measurementRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['measurement'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    const calibration = { tags, params: ModelParams, response: responses(CalibrationData) };
    app.get(MeasurementPaths.calibration, { schema: calibration, preHandler }, async (req) => ok(await getCalibration(deps, await model(req))));
    app.put(MeasurementPaths.calibration, { schema: { ...calibration, body: CalibrationBody }, preHandler }, async (req) => ok(await putCalibration(deps, await model(req), req.body)));
    app.delete(MeasurementPaths.calibration, { schema: calibration, preHandler }, async (req) => ok(await deleteCalibration(deps, await model(req))));

    const tolerances = { tags, params: ModelParams, response: responses(TolerancesData) };
    app.get(MeasurementPaths.tolerances, { schema: tolerances, preHandler }, async (req) => ok(await getTolerances(deps, await model(req))));
    app.put(MeasurementPaths.tolerances, { schema: { ...tolerances, body: Tolerances }, preHandler }, async (req) =>
      ok(await putTolerances(deps, await model(req), req.body, pickLanguage(req.headers.language))),
    );
    app.delete(MeasurementPaths.tolerances, { schema: tolerances, preHandler }, async (req) => ok(await deleteTolerances(deps, await model(req))));

    // A job (issue 30): the request queues it and answers at once; the client polls goldenJob.
    app.post(MeasurementPaths.golden, { schema: { tags, params: ModelParams, body: GoldenBody, response: responses(GoldenJobData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await queueGolden(deps, userOf(req), await model(req), req.body), pickLanguage(req.headers.language))),
    );
    app.get(MeasurementPaths.goldenJob, { schema: { tags, params: GoldenJobParams, response: responses(GoldenJobData) }, preHandler }, async (req) =>
      ok(withFailuresIn(await goldenJob(deps, await model(req), req.params.jobId), pickLanguage(req.headers.language))),
    );
    app.get(MeasurementPaths.results, { schema: { tags, params: TestParamsPath, querystring: MeasurementImagesQuery, response: responses(MeasurementImagesData) }, preHandler }, async (req) =>
      ok(await measurementResults(deps, await model(req), req.params.testId, req.query)),
    );
  };
}
