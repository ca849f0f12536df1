import type { TrainingStatus } from '@loupe/contracts';
import type { Deps } from '../deps.js';

const TERMINAL: TrainingStatus[] = ['succeeded', 'failed', 'cancelled'];

/**
 * Moves a training (and its model's training status) to `status` and tells the live streams. A terminal
 * status also ends the job and releases the model (project status back to 'no', menus unlock).
 */
export async function setTrainingStatus(deps: Deps, trainingId: number, status: TrainingStatus, error: string | null = null): Promise<void> {
  const t = await deps.trainings.byId(trainingId);
  if (!t) return;
  const now = deps.now();
  const done = TERMINAL.includes(status);
  await deps.db.transaction().execute(async (trx) => {
    await deps.trainings.update(
      trainingId,
      {
        status,
        ...(status === 'preparing' && t.started_at === null ? { started_at: now } : {}),
        ...(done ? { ended_at: now, eta_s: null, ...(error ? { error } : {}) } : {}),
      },
      trx,
    );
    await trx
      .updateTable('models')
      .set({ training_status: status, project_status: done ? 'no' : 'training', updated_at: now })
      .where('id', '=', t.model_id)
      .where('train_id', '=', trainingId)
      .execute();
    // Only its own training job: an agent's training runs inside the agent's job (issue 35), which goes on after it
    // (a test run inside it leaves it the same way, testing/state.ts).
    if (done && t.job_id !== null) {
      await trx
        .updateTable('jobs')
        .set({ state: status as 'succeeded' | 'failed' | 'cancelled', finished_at: now, ...(error ? { error } : {}) })
        .where('id', '=', t.job_id)
        .where('kind', '=', 'training')
        .execute();
    }
  });
  deps.trainingEvents.publish(trainingId, { type: 'state', data: { status, error } });
}
