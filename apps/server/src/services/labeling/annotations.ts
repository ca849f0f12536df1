import type { AnnotationsSaveBody, ImageAnnotationsData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { imageAnnotations } from '../gallery/images.js';
import { commitSet, currentSet, prepareShapes, sameSet } from './shapes.js';

/** The model's image or notFound. */
export async function modelImage(deps: Deps, model: Model, imageId: number) {
  const image = await deps.images.find(model.id, imageId);
  if (!image) fail('notFound');
  return image;
}

/**
 * Replaces an image's annotation set (SPEC §2 /mark). Optimistic: a save against an older version than the
 * image's answers annotationConflict. Every shape is checked and clamped first; one refusal stores nothing.
 * A set identical to the current one (same labels and clamped shapes, any order) is not stored again: the
 * client saves on leaving an image, and opening one must not make the model's trainings outdated.
 */
export async function saveAnnotations(deps: Deps, model: Model, imageId: number, body: AnnotationsSaveBody): Promise<ImageAnnotationsData> {
  if (model.type === 'classification') fail('wrongModelType');
  const image = await modelImage(deps, model, imageId);
  if (body.baseVersion !== image.annotation_version) fail('annotationConflict');
  const items = await prepareShapes(deps, model, image, body.annotations);
  if (!sameSet(items, await currentSet(deps, image.id))) await commitSet(deps, model, image, body.baseVersion, items);
  return imageAnnotations(deps, model, image.id);
}
