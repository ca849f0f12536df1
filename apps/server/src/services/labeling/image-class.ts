import type { ImageClassData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { modelImage } from './annotations.js';

/**
 * A classification image's one label (SPEC §2 /mark classification); null clears it. A label that is not
 * the model's is refused like one in an annotation save (labelNotInModel). Setting the class it already
 * has changes nothing, so trainings stay current.
 */
export async function setImageClass(deps: Deps, model: Model, imageId: number, labelId: number | null): Promise<ImageClassData> {
  if (model.type !== 'classification') fail('wrongModelType');
  const image = await modelImage(deps, model, imageId);
  if (labelId !== null && !(await deps.labels.find(model.id, labelId))) fail('labelNotInModel', { entry: `#${labelId}` }, { labelId });
  if (image.class_label_id !== labelId) {
    await deps.db.transaction().execute(async (trx) => {
      await deps.images.setClass(trx, model.id, image.id, labelId);
      await deps.models.bumpDataVersion(trx, model.id);
    });
  }
  const now = await modelImage(deps, model, imageId);
  return { imageId: now.id, classLabelId: now.class_label_id, labeled: now.labeled === 1 };
}
