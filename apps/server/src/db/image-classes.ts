import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * Multi-label classification: each image's set of classes (image_classes) and its confirmed "none of these"
 * (images.no_class). A model keeps its classes in one place at a time: image_classes while multi-label,
 * images.class_label_id while single-label; switchMode moves them. `labeled` follows both, as for annotations.
 */

/** Class sets of the given images, ascending label ids; images without classes are absent. */
export async function classSets(d: Kysely<DB>, imageIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  for (let i = 0; i < imageIds.length; i += 500) {
    const part = imageIds.slice(i, i + 500);
    if (part.length === 0) continue;
    const rows = await d.selectFrom('image_classes').select(['image_id', 'label_id']).where('image_id', 'in', part).orderBy('image_id').orderBy('label_id').execute();
    for (const r of rows) {
      const list = out.get(r.image_id);
      if (list) list.push(r.label_id);
      else out.set(r.image_id, [r.label_id]);
    }
  }
  return out;
}

/** Class sets of every image of the model. */
export async function modelClassSets(d: Kysely<DB>, modelId: number): Promise<Map<number, number[]>> {
  const rows = await d
    .selectFrom('image_classes')
    .innerJoin('images', 'images.id', 'image_classes.image_id')
    .select(['image_classes.image_id', 'image_classes.label_id'])
    .where('images.model_id', '=', modelId)
    .orderBy('image_classes.image_id')
    .orderBy('image_classes.label_id')
    .execute();
  const out = new Map<number, number[]>();
  for (const r of rows) {
    const list = out.get(r.image_id);
    if (list) list.push(r.label_id);
    else out.set(r.image_id, [r.label_id]);
  }
  return out;
}

/** Replaces one image's set (and its "none of these"); labeled follows. Runs in the caller's transaction. */
export async function replaceClassSet(trx: Kysely<DB>, imageId: number, labelIds: readonly number[], none: boolean): Promise<void> {
  await trx.deleteFrom('image_classes').where('image_id', '=', imageId).execute();
  if (labelIds.length > 0) await trx.insertInto('image_classes').values(labelIds.map((label_id) => ({ image_id: imageId, label_id }))).execute();
  await trx
    .updateTable('images')
    .set((eb) => ({
      no_class: none ? 1 : 0,
      labeled: labelIds.length > 0 || none ? 1 : eb.case().when('annotation_count', '>', 0).then(1).else(0).end(),
    }))
    .where('id', '=', imageId)
    .execute();
}

/** Up to `limit` names of the model's images holding more than one class, and how many there are. */
export async function imagesWithSeveralClasses(d: Kysely<DB>, modelId: number, limit: number): Promise<{ names: string[]; count: number }> {
  const rows = await d
    .selectFrom('image_classes')
    .innerJoin('images', 'images.id', 'image_classes.image_id')
    .select(['images.id', 'images.name'])
    .where('images.model_id', '=', modelId)
    .groupBy(['images.id', 'images.name'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('images.id')
    .execute();
  return { names: rows.slice(0, limit).map((r) => r.name), count: rows.length };
}

/**
 * Moves the model's classes into the other mode's place in the caller's transaction. To multi-label: each
 * class_label_id becomes a set of one. To single-label (callers have checked no set holds two): each set of one
 * becomes class_label_id and confirmed negatives become unlabeled. `labeled` is re-derived for the whole model.
 */
export async function switchMode(trx: Kysely<DB>, modelId: number, multiLabel: boolean): Promise<void> {
  const ofModel = trx.selectFrom('images').select('images.id').where('images.model_id', '=', modelId);
  if (multiLabel) {
    await trx
      .insertInto('image_classes')
      .columns(['image_id', 'label_id'])
      .expression(trx.selectFrom('images').select(['images.id', 'images.class_label_id as label_id']).where('model_id', '=', modelId).where('class_label_id', 'is not', null) as never)
      .execute();
    await trx.updateTable('images').set({ class_label_id: null }).where('model_id', '=', modelId).execute();
  } else {
    await trx
      .updateTable('images')
      .set((eb) => ({ class_label_id: eb.selectFrom('image_classes').select(sql<number>`min(image_classes.label_id)`.as('l')).whereRef('image_classes.image_id', '=', 'images.id') }))
      .where('model_id', '=', modelId)
      .execute();
    await trx.deleteFrom('image_classes').where('image_id', 'in', ofModel).execute();
    await trx.updateTable('images').set({ no_class: 0 }).where('model_id', '=', modelId).execute();
  }
  await trx
    .updateTable('images')
    .set((eb) => ({
      labeled: eb
        .case()
        .when(eb.or([eb('annotation_count', '>', 0), eb('class_label_id', 'is not', null), eb('no_class', '=', 1), eb.exists(eb.selectFrom('image_classes').select('image_classes.label_id').whereRef('image_classes.image_id', '=', 'images.id'))]))
        .then(1)
        .else(0)
        .end(),
    }))
    .where('model_id', '=', modelId)
    .execute();
}
