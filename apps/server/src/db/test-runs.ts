import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { TestImageFilter } from '@loupe/contracts';
import type { DB, TestRunImagesTable, TestRunsTable } from './schema.js';

export type TestRun = Selectable<TestRunsTable>;
/** A run with its training's version number, what every view of a run shows. */
export type TestRunRow = TestRun & { version: number };
export type TestRunImage = Selectable<TestRunImagesTable>;

/** Test runs and their per-image results. */
export function testRunsRepo(db: Kysely<DB>) {
  const withVersion = () => db.selectFrom('test_runs').innerJoin('trainings as t', 't.id', 'test_runs.training_id').selectAll('test_runs').select('t.version');
  const imagesOf = (runId: number, filter: TestImageFilter) => {
    let q = db.selectFrom('test_run_images as r').innerJoin('images as i', 'i.id', 'r.image_id').where('r.test_run_id', '=', runId);
    if (filter === 'withResults') q = q.where('r.predictions', '>', 0);
    if (filter === 'noResults') q = q.where('r.predictions', '=', 0);
    if (filter === 'errors') q = q.where((eb) => eb.or([eb('r.fp', '>', 0), eb('r.fn', '>', 0)]));
    return q;
  };
  return {
    async insert(d: Kysely<DB>, row: Insertable<TestRunsTable>, imageIds: readonly number[]): Promise<number> {
      const id = (await d.insertInto('test_runs').values(row).returning('id').executeTakeFirstOrThrow()).id;
      for (let i = 0; i < imageIds.length; i += 500) {
        await d.insertInto('test_run_images').values(imageIds.slice(i, i + 500).map((image_id) => ({ test_run_id: id, image_id }))).execute();
      }
      return id;
    },
    find: (modelId: number, id: number) => withVersion().where('test_runs.model_id', '=', modelId).where('test_runs.id', '=', id).executeTakeFirst(),
    byId: (id: number) => withVersion().where('test_runs.id', '=', id).executeTakeFirst(),
    byJob: (jobId: number) => db.selectFrom('test_runs').selectAll().where('job_id', '=', jobId).executeTakeFirst(),
    list: (modelId: number) => withVersion().where('test_runs.model_id', '=', modelId).orderBy('test_runs.id', 'desc').execute(),
    active: (modelId: number) =>
      db.selectFrom('test_runs').select('id').where('model_id', '=', modelId).where('status', 'in', ['queued', 'preparing', 'testing']).executeTakeFirst(),
    async update(id: number, patch: Updateable<TestRunsTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('test_runs').set(patch).where('id', '=', id).execute();
    },
    /** The run's images still in the gallery (a deleted image leaves its runs). */
    imageIds: async (runId: number) =>
      (await db.selectFrom('test_run_images').select('image_id').where('test_run_id', '=', runId).orderBy('image_id').execute()).map((r) => r.image_id),
    async saveImage(d: Kysely<DB>, runId: number, imageId: number, patch: Updateable<TestRunImagesTable>): Promise<void> {
      await d.updateTable('test_run_images').set(patch).where('test_run_id', '=', runId).where('image_id', '=', imageId).execute();
    },
    /** One page of the run's images (by image id, with the image rows) that pass the filter, and how many pass it. */
    async page(runId: number, filter: TestImageFilter, page: number, pageSize: number) {
      const counted = await imagesOf(runId, filter).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const items = await imagesOf(runId, filter)
        .selectAll('i')
        .selectAll('r')
        .orderBy('r.image_id')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute();
      return { items, total: Number(counted.n) };
    },
  };
}
export type TestRunsRepo = ReturnType<typeof testRunsRepo>;
