import type { Kysely } from 'kysely';
import type { Job } from './jobs.js';
import type { DB, JobKind } from './schema.js';

/** The reads the monitor (services/monitor.ts) makes of a model's jobs and what they ran on. */
export function monitorRepo(db: Kysely<DB>) {
  return {
    /** The model's last `limit` jobs of these kinds, newest first. */
    modelJobs: (modelId: number, kinds: JobKind[], limit: number) =>
      db.selectFrom('jobs').selectAll().where('model_id', '=', modelId).where('kind', 'in', kinds).orderBy('id', 'desc').limit(limit).execute(),
    /** The model's trainings, test runs and packs: what a job's payload names, with the version each ran on. */
    async subjects(modelId: number) {
      const [trainings, tests, packs] = await Promise.all([
        db.selectFrom('trainings').select(['id', 'version', 'phase', 'epoch', 'epochs', 'eta_s', 'error']).where('model_id', '=', modelId).execute(),
        db.selectFrom('test_runs').select(['id', 'training_id', 'done', 'image_count', 'error']).where('model_id', '=', modelId).execute(),
        db.selectFrom('model_packs').select(['id', 'training_id', 'error']).where('model_id', '=', modelId).execute(),
      ]);
      return { trainings, tests, packs };
    },
    /**
     * Queued jobs of every account that the runner takes before `job`: a higher priority, or the same priority and
     * queued earlier (job-queue-db.ts's order within a priority).
     */
    async queuedAhead(job: Job): Promise<number> {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('state', '=', 'queued')
        .where((eb) =>
          eb.or([
            eb('priority', '>', job.priority),
            eb.and([eb('priority', '=', job.priority), eb.or([eb('created_at', '<', job.created_at), eb.and([eb('created_at', '=', job.created_at), eb('id', '<', job.id)])])]),
          ]),
        )
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
