import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DatasetAnalysesTable, DB } from './schema.js';

export type AnalysisRow = Selectable<DatasetAnalysesTable>;

/** Dataset analyses (issue 35): one row per analysis of a model's data; the newest is what /statistics shows. */
export function analysesRepo(db: Kysely<DB>) {
  return {
    async insert(d: Kysely<DB>, row: Insertable<DatasetAnalysesTable>): Promise<number> {
      return (await d.insertInto('dataset_analyses').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    byId: (id: number) => db.selectFrom('dataset_analyses').selectAll().where('id', '=', id).executeTakeFirst(),
    find: (modelId: number, id: number) =>
      db.selectFrom('dataset_analyses').selectAll().where('model_id', '=', modelId).where('id', '=', id).executeTakeFirst(),
    byJob: (jobId: number) => db.selectFrom('dataset_analyses').selectAll().where('job_id', '=', jobId).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    latest: (modelId: number) => db.selectFrom('dataset_analyses').selectAll().where('model_id', '=', modelId).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    /** The newest completed analysis of exactly this data at this image size: analysing it again would say the same. */
    completed: (modelId: number, manifestSha: string, imgsz: number) =>
      db
        .selectFrom('dataset_analyses')
        .selectAll()
        .where('model_id', '=', modelId)
        .where('manifest_sha', '=', manifestSha)
        .where('imgsz', '=', imgsz)
        .where('status', '=', 'completed')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst(),
    /** The model's analysis that is queued or running, if any. */
    active: (modelId: number) =>
      db.selectFrom('dataset_analyses').selectAll().where('model_id', '=', modelId).where('status', 'in', ['queued', 'running']).orderBy('id', 'desc').limit(1).executeTakeFirst(),
    /**
     * Fails the model's analyses still marked queued or running whose job has ended (an agent's job that died
     * mid-analysis records nothing of it): otherwise they would block the next start forever. Answers how many.
     */
    async settleOrphans(modelId: number, error: string, now: number): Promise<number> {
      const live = db.selectFrom('jobs').select('id').where('model_id', '=', modelId).where('state', 'in', ['queued', 'running']);
      const r = await db
        .updateTable('dataset_analyses')
        .set({ status: 'failed', error, finished_at: now })
        .where('model_id', '=', modelId)
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('job_id', 'is', null), eb('job_id', 'not in', live)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async update(id: number, patch: Updateable<DatasetAnalysesTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('dataset_analyses').set(patch).where('id', '=', id).execute();
    },
  };
}
export type AnalysesRepo = ReturnType<typeof analysesRepo>;
