import { LabelingLimits, type ConvertTestResultsBody, type Geometry, type ImageAnnotationsData, type NewAnnotation, type TestResultsData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { imageAnnotations } from '../gallery/images.js';
import { modelImage } from './annotations.js';
import { checkShape, commitSet, currentSet, modelLabelIds, prepareShapes, shapeKey } from './shapes.js';

/** The latest test's detections on an image (SPEC §4 test boxes, drawn dashed). */
export async function testResults(deps: Deps, model: Model, imageId: number): Promise<TestResultsData> {
  const image = await modelImage(deps, model, imageId);
  const rows = await deps.testPredictions.forImage(model.id, image.id);
  return {
    imageId: image.id,
    convertible: image.split === 'test',
    results: rows.map((r) => ({ id: r.id, labelId: r.label_id, geometry: JSON.parse(r.geometry) as Geometry, confidence: Number(r.confidence) })),
  };
}

/**
 * Test boxes become annotations only on test data (SPEC §5). The chosen results (all when no ids) are
 * clamped, lose their confidence and are added to the current set as a new version; ones already in the set
 * (same label and shape) are not added again, so converting twice changes nothing.
 * Converting all skips detections the annotation rules refuse (too small, outside the image): they are the
 * model's noise, not something the user picked. Converting chosen ids refuses like a save does.
 */
export async function convertTestResults(deps: Deps, model: Model, imageId: number, body: ConvertTestResultsBody): Promise<ImageAnnotationsData> {
  if (model.type === 'classification') fail('wrongModelType');
  const image = await modelImage(deps, model, imageId);
  if (image.split !== 'test') fail('notTestData');
  const wanted = body.ids ? new Set(body.ids) : null;
  const chosen = (await deps.testPredictions.forImage(model.id, image.id)).filter((r) => !wanted || wanted.has(r.id));
  if (chosen.length === 0) fail('convertFailed');
  if (body.baseVersion !== image.annotation_version) fail('annotationConflict');
  const asShapes: NewAnnotation[] = chosen.map((r) => ({ labelId: r.label_id, geometry: JSON.parse(r.geometry) as Geometry }));
  let added: NewAnnotation[];
  if (wanted) {
    added = await prepareShapes(deps, model, image, asShapes, (i) => ({ vars: { entry: `#${chosen[i]!.id}` }, data: { resultId: chosen[i]!.id } }));
  } else {
    const labelIds = await modelLabelIds(deps, model);
    added = asShapes.flatMap((a) => {
      const r = checkShape(model, image, labelIds, a);
      return 'ok' in r ? [r.ok] : [];
    });
    if (added.length === 0) fail('convertFailed');
  }
  const current = await currentSet(deps, image.id);
  // Converting the same detection twice would stack two identical shapes on the object.
  const have = new Set(current.map(shapeKey));
  const fresh = added.filter((a) => !have.has(shapeKey(a)));
  if (fresh.length > 0) {
    if (current.length + fresh.length > LabelingLimits.shapesPerImageMax) fail('validation', { field: 'annotations', reason: 'length' });
    await commitSet(deps, model, image, body.baseVersion, [...current, ...fresh]);
  }
  return imageAnnotations(deps, model, image.id);
}
