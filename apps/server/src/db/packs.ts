import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, ModelPacksTable } from './schema.js';

export type Pack = Selectable<ModelPacksTable>;
export type PackKind = ModelPacksTable['kind'];

/** Exported models and SDK ZIPs (model_packs); a model's latest pack of a kind is what its page shows. */
export function packsRepo(db: Kysely<DB>) {
  return {
    async insert(d: Kysely<DB>, row: Insertable<ModelPacksTable>): Promise<number> {
      return (await d.insertInto('model_packs').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    byId: (id: number) => db.selectFrom('model_packs').selectAll().where('id', '=', id).executeTakeFirst(),
    byJob: (jobId: number) => db.selectFrom('model_packs').selectAll().where('job_id', '=', jobId).executeTakeFirst(),
    latest: (modelId: number, kind: PackKind) =>
      db.selectFrom('model_packs').selectAll().where('model_id', '=', modelId).where('kind', '=', kind).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    /** The pack being made for the model (one export job per model at a time), if any. */
    packing: (modelId: number) =>
      db.selectFrom('model_packs').selectAll().where('model_id', '=', modelId).where('status', '=', 'packing').orderBy('id', 'desc').limit(1).executeTakeFirst(),
    async update(id: number, patch: Updateable<ModelPacksTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('model_packs').set(patch).where('id', '=', id).execute();
    },
  };
}
export type PacksRepo = ReturnType<typeof packsRepo>;
