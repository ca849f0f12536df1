import type { ClassificationModeData, ImageClassData, ImageClassesBody, ImageClassesData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import { classSets, imagesWithSeveralClasses, replaceClassSet, switchMode } from '../../db/image-classes.js';
import type { Deps } from '../deps.js';
import { modelImage } from './annotations.js';

/** Image names a refusal lists before "… (N in all)". */
const NAMED_IMAGES = 5;

const isMulti = (model: Model) => model.multi_label === 1;

/**
 * A classification image's one label (SPEC §2 /mark classification); null clears it. A label that is not
 * the model's is refused like one in an annotation save (labelNotInModel). Setting the class it already
 * has changes nothing, so trainings stay current. A multi-label model takes sets instead (classModeMismatch).
 */
export async function setImageClass(deps: Deps, model: Model, imageId: number, labelId: number | null): Promise<ImageClassData> {
  if (model.type !== 'classification') fail('wrongModelType');
  if (isMulti(model)) fail('classModeMismatch');
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

/**
 * A multi-label image's whole set of classes, or a confirmed "none of these" (body.none with an empty set; a
 * class given with none is refused as invalid input). Unknown labels are refused and nothing changes; the same
 * set again changes nothing (trainings stay current); any other change raises the data version.
 */
export async function setImageClasses(deps: Deps, model: Model, imageId: number, body: ImageClassesBody): Promise<ImageClassesData> {
  if (model.type !== 'classification') fail('wrongModelType');
  if (!isMulti(model)) fail('classModeMismatch');
  const image = await modelImage(deps, model, imageId);
  const wanted = [...new Set(body.labelIds)].sort((a, b) => a - b);
  const none = body.none === true;
  if (none && wanted.length > 0) fail('validation');
  const known = new Set((await deps.labels.list(model.id)).map((l) => l.id));
  const unknown = wanted.find((id) => !known.has(id));
  if (unknown !== undefined) fail('labelNotInModel', { entry: `#${unknown}` }, { labelId: unknown });
  const before = (await classSets(deps.db, [image.id])).get(image.id) ?? [];
  if (before.join(',') !== wanted.join(',') || (image.no_class === 1) !== none) {
    await deps.db.transaction().execute(async (trx) => {
      await replaceClassSet(trx, image.id, wanted, none);
      await deps.models.bumpDataVersion(trx, model.id);
    });
  }
  const now = await modelImage(deps, model, imageId);
  return { imageId: now.id, classLabelIds: (await classSets(deps.db, [now.id])).get(now.id) ?? [], noClass: now.no_class === 1, labeled: now.labeled === 1 };
}

/**
 * One class per image or several (ClassificationModeBody). Switching moves the classes (db/image-classes
 * switchMode) and raises the data version; to one class it is refused, naming the images, while any image has
 * more than one. Asking for the mode the model has changes nothing.
 */
export async function setClassificationMode(deps: Deps, model: Model, multiLabel: boolean): Promise<ClassificationModeData> {
  if (model.type !== 'classification') fail('wrongModelType');
  if (isMulti(model) !== multiLabel) {
    if (!multiLabel) {
      const several = await imagesWithSeveralClasses(deps.db, model.id, NAMED_IMAGES);
      if (several.count > 0) {
        const more = several.count > several.names.length ? ` … (${several.count})` : '';
        fail('multiLabelInUse', { images: several.names.join(', ') + more }, { images: several.names, count: several.count });
      }
    }
    await deps.db.transaction().execute(async (trx) => {
      await switchMode(trx, model.id, multiLabel);
      await trx.updateTable('models').set({ multi_label: multiLabel ? 1 : 0, updated_at: deps.now() }).where('id', '=', model.id).execute();
      await deps.models.bumpDataVersion(trx, model.id);
    });
  }
  const now = await deps.models.find(model.owner_id, model.id);
  return { multiLabel: now!.multi_label === 1, dataVersion: now!.data_version };
}
