import type { Kysely, Selectable } from 'kysely';
import type { DB, LabelsTable } from './schema.js';

export type Label = Selectable<LabelsTable>;

/** Labels of one model; callers have already checked the model belongs to the caller. */
export function labelsRepo(db: Kysely<DB>) {
  return {
    list: (modelId: number, d: Kysely<DB> = db) =>
      d.selectFrom('labels').selectAll().where('model_id', '=', modelId).orderBy('id').execute(),
    /** Images per label: current annotations, the class label or one of the image's classes (multi-label). */
    async imageCounts(modelId: number): Promise<Map<number, number>> {
      const rows = await db
        .selectFrom('labels')
        .where('labels.model_id', '=', modelId)
        .select((eb) => [
          'labels.id',
          eb
            .selectFrom('images')
            .where('images.model_id', '=', modelId)
            .where((w) =>
              w.or([
                w('images.class_label_id', '=', w.ref('labels.id')),
                w.exists(
                  w.selectFrom('image_classes').select('image_classes.image_id').whereRef('image_classes.image_id', '=', 'images.id').whereRef('image_classes.label_id', '=', 'labels.id'),
                ),
                w.exists(
                  w
                    .selectFrom('annotations')
                    .select('annotations.id')
                    .whereRef('annotations.image_id', '=', 'images.id')
                    .where('annotations.current', '=', 1)
                    .whereRef('annotations.label_id', '=', 'labels.id'),
                ),
              ]),
            )
            .select((c) => c.fn.countAll<number>().as('n'))
            .as('n'),
        ])
        .execute();
      return new Map(rows.map((r) => [r.id, Number(r.n)]));
    },
    find: (modelId: number, id: number) =>
      db.selectFrom('labels').selectAll().where('model_id', '=', modelId).where('id', '=', id).executeTakeFirst(),
    findByKey: (modelId: number, nameKey: string, d: Kysely<DB> = db) =>
      d.selectFrom('labels').selectAll().where('model_id', '=', modelId).where('name_key', '=', nameKey).executeTakeFirst(),
    async count(modelId: number, d: Kysely<DB> = db): Promise<number> {
      const r = await d.selectFrom('labels').where('model_id', '=', modelId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async insert(d: Kysely<DB>, row: { model_id: number; name: string; name_key: string; color: string; created_at: number }) {
      return (await d.insertInto('labels').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    async update(modelId: number, id: number, patch: Partial<Pick<Label, 'name' | 'name_key' | 'color'>>, d: Kysely<DB> = db) {
      await d.updateTable('labels').set(patch).where('model_id', '=', modelId).where('id', '=', id).execute();
    },
    /**
     * Deletes the label, its annotations and the class of its images, then recounts those images. Runs in the
     * caller's transaction.
     */
    async remove(trx: Kysely<DB>, modelId: number, id: number): Promise<void> {
      const touched = await trx.selectFrom('annotations').select('image_id').distinct().where('label_id', '=', id).execute();
      await trx.deleteFrom('annotations').where('label_id', '=', id).execute();
      await trx.updateTable('images').set({ class_label_id: null }).where('model_id', '=', modelId).where('class_label_id', '=', id).execute();
      await trx.deleteFrom('image_classes').where('label_id', '=', id).execute();
      await trx.deleteFrom('labels').where('model_id', '=', modelId).where('id', '=', id).execute();
      const ids = touched.map((t) => t.image_id);
      for (let i = 0; i < ids.length; i += 500) await recount(trx, ids.slice(i, i + 500));
      await trx
        .updateTable('images')
        .set({ labeled: 0 })
        .where('model_id', '=', modelId)
        .where('labeled', '=', 1)
        .where('annotation_count', '=', 0)
        .where('class_label_id', 'is', null)
        .where('no_class', '=', 0)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('image_classes').select('image_classes.image_id').whereRef('image_classes.image_id', '=', 'images.id'))))
        .execute();
    },
  };
}
export type LabelsRepo = ReturnType<typeof labelsRepo>;

/** Re-derives annotation_count and labeled of the given images from their current annotation rows. */
export async function recount(d: Kysely<DB>, imageIds: number[]): Promise<void> {
  if (imageIds.length === 0) return;
  await d
    .updateTable('images')
    .set((eb) => ({
      annotation_count: eb
        .selectFrom('annotations')
        .whereRef('annotations.image_id', '=', 'images.id')
        .whereRef('annotations.version', '=', 'images.annotation_version')
        .select((c) => c.fn.countAll<number>().as('n')),
    }))
    .where('id', 'in', imageIds)
    .execute();
  await d
    .updateTable('images')
    .set((eb) => ({
      labeled: eb
        .case()
        .when(
          eb.or([
            eb('annotation_count', '>', 0),
            eb('class_label_id', 'is not', null),
            eb('no_class', '=', 1),
            eb.exists(eb.selectFrom('image_classes').select('image_classes.image_id').whereRef('image_classes.image_id', '=', 'images.id')),
          ]),
        )
        .then(1)
        .else(0)
        .end(),
    }))
    .where('id', 'in', imageIds)
    .execute();
}
