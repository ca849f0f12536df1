import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  AnnotationsSaveBody,
  ClassificationModeBody,
  ClassificationModeData,
  ConvertTestResultsBody,
  GuideSeenBody,
  GuidesData,
  ImageAnnotationsData,
  ImageClassBody,
  ImageClassData,
  ImageClassesBody,
  ImageClassesData,
  ImageParams,
  LabelingPaths,
  LabelingSettingsBody,
  LabelingSettingsData,
  ModelParams,
  TestResultsData,
} from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { ownModel } from '../services/models.js';
import { saveAnnotations } from '../services/labeling/annotations.js';
import { setClassificationMode, setImageClass, setImageClasses } from '../services/labeling/image-class.js';
import { convertTestResults, testResults } from '../services/labeling/test-results.js';
import { labelingSettings, updateLabelingSettings } from '../services/labeling/settings.js';
import { guidesSeen, markGuideSeen } from '../services/labeling/guides.js';

/** 2,000 polygons of 20 points are about 1 MB of JSON; a dense image may hold far more. */
const ANNOTATIONS_BODY_LIMIT = 32 * 1024 * 1024;

/** Labeling studio (SPEC §2 /mark): save annotations and classes, test boxes, settings, first-use guides. */
export function labelingRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['labeling'];
    const preHandler = requireUser(deps);
    const model = (req: { params: { modelId: number } } & Parameters<typeof userOf>[0]) => ownModel(deps, userOf(req), req.params.modelId);

    app.put(
      LabelingPaths.annotations,
      { schema: { tags, params: ImageParams, body: AnnotationsSaveBody, response: responses(ImageAnnotationsData) }, preHandler, bodyLimit: ANNOTATIONS_BODY_LIMIT },
      async (req) => ok(await saveAnnotations(deps, await model(req), req.params.imageId, req.body)),
    );
    app.put(LabelingPaths.imageClass, { schema: { tags, params: ImageParams, body: ImageClassBody, response: responses(ImageClassData) }, preHandler }, async (req) =>
      ok(await setImageClass(deps, await model(req), req.params.imageId, req.body.labelId)),
    );
    app.put(
      LabelingPaths.imageClasses,
      { schema: { tags, params: ImageParams, body: ImageClassesBody, response: responses(ImageClassesData) }, preHandler },
      async (req) => ok(await setImageClasses(deps, await model(req), req.params.imageId, req.body)),
    );
    app.put(
      LabelingPaths.classificationMode,
      { schema: { tags, params: ModelParams, body: ClassificationModeBody, response: responses(ClassificationModeData) }, preHandler },
      async (req) => ok(await setClassificationMode(deps, await model(req), req.body.multiLabel)),
    );
    app.get(LabelingPaths.testResults, { schema: { tags, params: ImageParams, response: responses(TestResultsData) }, preHandler }, async (req) =>
      ok(await testResults(deps, await model(req), req.params.imageId)),
    );
    app.post(
      LabelingPaths.convertTestResults,
      { schema: { tags, params: ImageParams, body: ConvertTestResultsBody, response: responses(ImageAnnotationsData) }, preHandler },
      async (req) => ok(await convertTestResults(deps, await model(req), req.params.imageId, req.body)),
    );
    app.get(LabelingPaths.settings, { schema: { tags, params: ModelParams, response: responses(LabelingSettingsData) }, preHandler }, async (req) =>
      ok(labelingSettings(await model(req))),
    );
    app.put(
      LabelingPaths.settings,
      { schema: { tags, params: ModelParams, body: LabelingSettingsBody, response: responses(LabelingSettingsData) }, preHandler },
      async (req) => ok(await updateLabelingSettings(deps, await model(req), req.body)),
    );
    app.get(LabelingPaths.guides, { schema: { tags, response: responses(GuidesData) }, preHandler }, async (req) => ok(guidesSeen(userOf(req))));
    app.post(LabelingPaths.guides, { schema: { tags, body: GuideSeenBody, response: responses(GuidesData) }, preHandler }, async (req) =>
      ok(await markGuideSeen(deps, userOf(req), req.body.guide)),
    );
  };
}
