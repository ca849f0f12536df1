import type { TrainingData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import type { User } from '../../db/users.js';
import type { Deps } from '../deps.js';
import { setTrainingStatus } from './state.js';
import { getTraining } from './trainings.js';
import { dropCheckpoint, hasCheckpoint } from './workdir.js';
import { isUniqueViolation } from '../../db/database.js';

/**
 * Ends a training failed. With an epoch checkpoint in the blob store it stays resumable (the checkpoint is kept);
 * without one, or when the engine said the checkpoint cannot continue, the checkpoint goes.
 */
export async function failTraining(deps: Deps, trainingId: number, reason: string, opts: { resumable?: boolean } = {}): Promise<void> {
  const resumable = opts.resumable !== false && (await hasCheckpoint(deps, trainingId));
  if (!resumable) await dropCheckpoint(deps, trainingId);
  await deps.trainings.update(trainingId, { resumable: resumable ? 1 : 0 });
  await setTrainingStatus(deps, trainingId, 'failed', reason);
}

/**
 * Queues a failed training again from its last epoch's checkpoint (same record, same snapshot, same
 * parameters; a new job). The model's current training becomes this one, as on a start.
 */
export async function resumeTraining(deps: Deps, user: User, model: Model, trainingId: number): Promise<TrainingData> {
  const t = await deps.trainings.find(model.id, trainingId);
  if (!t) fail('notFound');
  if (t.status !== 'failed' || t.resumable !== 1 || !(await hasCheckpoint(deps, t.id))) fail('trainingNotResumable');
  if (await deps.trainings.active(model.id)) fail('ongoingTraining');
  const now = deps.now();
  try {
    await deps.db.transaction().execute(async (trx) => {
      const jobId = await deps.jobs.insert(trx, {
        kind: 'training',
        model_id: model.id,
        owner_id: user.id,
        priority: user.training_priority,
        state: 'queued',
        payload: JSON.stringify({ trainingId: t.id, resume: true }),
        created_at: now,
      });
      await deps.trainings.update(t.id, { job_id: jobId, status: 'queued', phase: 'queued', resumable: 0, error: null, ended_at: null, eta_s: null }, trx);
      await trx.updateTable('models').set({ train_id: t.id, training_status: 'queued', project_status: 'training', updated_at: now }).where('id', '=', model.id).execute();
    });
  } catch (e) {
    // Two starts racing past the check: the one-active-job index decides.
    if (isUniqueViolation(e)) fail('ongoingTraining');
    throw e;
  }
  deps.trainingEvents.publish(t.id, { type: 'state', data: { status: 'queued', error: null } });
  // The answer is what this call did (queued): read before the runner may take the job and move it on.
  const queued = await getTraining(deps, model, t.id);
  deps.queue.kick();
  return queued;
}
