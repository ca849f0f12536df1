import type { Kysely, Updateable } from 'kysely';
import type { DB, MeasurementSettingsTable } from '../../db/schema.js';

/** measurement_settings rows: one per model, created by the first save of either part. */
export function measurementRepo(db: Kysely<DB>) {
  return {
    find: (modelId: number) => db.selectFrom('measurement_settings').selectAll().where('model_id', '=', modelId).executeTakeFirst(),
    async save(modelId: number, patch: Updateable<MeasurementSettingsTable>): Promise<void> {
      const row = { model_id: modelId, mm_per_px: null, calibration_line: null, calibration_updated_at: null, tolerances: null, tolerances_updated_at: null, ...patch };
      // One statement: two saves racing never insert twice (both dialects have ON CONFLICT).
      await db.insertInto('measurement_settings').values(row).onConflict((oc) => oc.column('model_id').doUpdateSet(patch)).execute();
    },
  };
}
