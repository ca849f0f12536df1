import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DatasetSnapshotsTable, DB, TrainingsTable } from './schema.js';

export type Training = Selectable<TrainingsTable>;
export type Snapshot = Selectable<DatasetSnapshotsTable>;
/** `data_stats`: the training_advice row's JSON (null before issue 31's migration, or when not joined). */
export type TrainingRow = Training & { total_images: number; image_count: number; label_count: number; data_stats?: string | null };

/** Trainings, their epochs and the snapshots they froze; reads join the snapshot's counts. */
export function trainingsRepo(db: Kysely<DB>) {
  const withCounts = () =>
    db
      .selectFrom('trainings')
      .innerJoin('dataset_snapshots as s', 's.id', 'trainings.snapshot_id')
      .leftJoin('training_advice as ta', 'ta.training_id', 'trainings.id')
      .selectAll('trainings')
      .select(['s.total_images', 's.image_count', 's.label_count', 'ta.data_stats']);
  return {
    /** `blobs`: the image blobs the snapshot names, kept from deletion while the snapshot exists. */
    async insertSnapshot(d: Kysely<DB>, row: Insertable<DatasetSnapshotsTable>, blobs: readonly string[]): Promise<number> {
      // The same frozen content twice is one snapshot (unique model + hash).
      const same = await d.selectFrom('dataset_snapshots').select('id').where('model_id', '=', row.model_id).where('content_hash', '=', row.content_hash).executeTakeFirst();
      if (same) return same.id;
      const id = (await d.insertInto('dataset_snapshots').values(row).returning('id').executeTakeFirstOrThrow()).id;
      const unique = [...new Set(blobs)];
      for (let i = 0; i < unique.length; i += 500) {
        await d.insertInto('snapshot_blobs').values(unique.slice(i, i + 500).map((sha256) => ({ snapshot_id: id, sha256 }))).execute();
      }
      return id;
    },
    snapshot: (id: number) => db.selectFrom('dataset_snapshots').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    async insert(d: Kysely<DB>, row: Insertable<TrainingsTable>): Promise<number> {
      return (await d.insertInto('trainings').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    async nextVersion(d: Kysely<DB>, modelId: number): Promise<number> {
      const r = await d.selectFrom('trainings').where('model_id', '=', modelId).select((eb) => eb.fn.max<number | null>('version').as('v')).executeTakeFirst();
      return Number(r?.v ?? 0) + 1;
    },
    find: (modelId: number, id: number) =>
      withCounts().where('trainings.model_id', '=', modelId).where('trainings.id', '=', id).executeTakeFirst() as Promise<TrainingRow | undefined>,
    byId: (id: number) => withCounts().where('trainings.id', '=', id).executeTakeFirst() as Promise<TrainingRow | undefined>,
    byJob: (jobId: number) => db.selectFrom('trainings').selectAll().where('job_id', '=', jobId).executeTakeFirst(),
    list: (modelId: number) => withCounts().where('trainings.model_id', '=', modelId).orderBy('trainings.version', 'desc').execute() as Promise<TrainingRow[]>,
    active: (modelId: number) =>
      db.selectFrom('trainings').select('id').where('model_id', '=', modelId).where('status', 'in', ['queued', 'preparing', 'training']).executeTakeFirst(),
    async update(id: number, patch: Updateable<TrainingsTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('trainings').set(patch).where('id', '=', id).execute();
    },
    async addEpoch(row: { training_id: number; epoch: number; epochs: number; metrics: string; eta_s: number | null; created_at: number }): Promise<void> {
      // A resumed run may report an epoch again: the last report wins.
      await db.deleteFrom('training_epochs').where('training_id', '=', row.training_id).where('epoch', '=', row.epoch).execute();
      await db.insertInto('training_epochs').values(row).execute();
    },
    epochs: (trainingId: number, after = 0) =>
      db.selectFrom('training_epochs').selectAll().where('training_id', '=', trainingId).where('epoch', '>', after).orderBy('epoch').execute(),
  };
}
export type TrainingsRepo = ReturnType<typeof trainingsRepo>;
