import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { fail } from '../errors.js';
import type { DB, JobKind, JobsTable } from './schema.js';

export type { JobKind };

export type Job = Selectable<JobsTable>;

/** Jobs (queued + running) one account may hold at once; Infinity = no limit. */
export interface JobLimits {
  perAccount: number;
  /**
   * PostgreSQL: lock the account's row before counting, so two requests at once cannot both pass the count
   * (SQLite runs one write transaction at a time already).
   */
  lockOwner?: boolean;
}

/**
 * The jobs table: the record of every job. Who runs which job next is the JobQueue port's (adapters/job-queue*.ts).
 * Fair use (issue 30): an account holds at most `limits.perAccount` jobs at once, checked in the caller's transaction.
 */
export function jobsRepo(db: Kysely<DB>, limits: JobLimits = { perAccount: Infinity }) {
  return {
    /** Queues a job in the caller's transaction; refuses with tooManyJobs (the transaction rolls back) when the account is at its limit. */
    async insert(d: Kysely<DB>, row: Insertable<JobsTable>): Promise<number> {
      if (limits.lockOwner) await d.selectFrom('users').select('id').where('id', '=', row.owner_id).forUpdate().execute();
      const held = await d
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('owner_id', '=', row.owner_id)
        .where('state', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      const count = Number(held.n);
      if (count >= limits.perAccount) fail('tooManyJobs', { count, max: limits.perAccount });
      return (await d.insertInto('jobs').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    find: (id: number) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst(),
    async update(id: number, patch: Updateable<JobsTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('jobs').set(patch).where('id', '=', id).execute();
    },
  };
}
export type JobsRepo = ReturnType<typeof jobsRepo>;
