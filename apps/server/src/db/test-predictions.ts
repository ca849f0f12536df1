import type { Insertable, Kysely } from 'kysely';
import type { DB, TestPredictionsTable } from './schema.js';

export type NewTestPrediction = Insertable<TestPredictionsTable>;

/** Detections of the latest test run per image. Test runs write them; the labeling studio reads them. */
export function testPredictionsRepo(db: Kysely<DB>) {
  return {
    forImage: (modelId: number, imageId: number) =>
      db.selectFrom('test_predictions').selectAll().where('model_id', '=', modelId).where('image_id', '=', imageId).orderBy('id').execute(),
    async insertMany(rows: NewTestPrediction[], d: Kysely<DB> = db): Promise<void> {
      for (let i = 0; i < rows.length; i += 500) await d.insertInto('test_predictions').values(rows.slice(i, i + 500)).execute();
    },
    /** A test run's detections take the place of earlier ones on the same images. */
    async replace(d: Kysely<DB>, modelId: number, imageIds: readonly number[], rows: NewTestPrediction[]): Promise<void> {
      for (let i = 0; i < imageIds.length; i += 500) {
        await d.deleteFrom('test_predictions').where('model_id', '=', modelId).where('image_id', 'in', imageIds.slice(i, i + 500)).execute();
      }
      for (let i = 0; i < rows.length; i += 500) await d.insertInto('test_predictions').values(rows.slice(i, i + 500)).execute();
    },
  };
}
export type TestPredictionsRepo = ReturnType<typeof testPredictionsRepo>;
