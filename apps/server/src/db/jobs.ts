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
 * The durable queue. Claiming is a conditional update, so two runners never take the same job. Fair use
 * (issue 30): an account holds at most `limits.perAccount` jobs at once, checked in the caller's transaction,
 * and the queue serves accounts of the same priority in turn.
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
    /**
     * The next queued job: higher priority first; within a priority, the account with fewer running jobs, then
     * the one served longest ago (its last job's start; never served comes first), then the oldest job. So one
     * account's queue of jobs cannot keep another account's job of the same priority waiting behind all of it.
     */
    async claim(now: number): Promise<Job | null> {
      return db.transaction().execute(async (trx) => {
        const next = await trx
          .selectFrom('jobs as j')
          .selectAll('j')
          .where('j.state', '=', 'queued')
          .orderBy('j.priority', 'desc')
          .orderBy((eb) => eb.selectFrom('jobs as r').select((x) => x.fn.countAll().as('n')).whereRef('r.owner_id', '=', 'j.owner_id').where('r.state', '=', 'running'), 'asc')
          .orderBy((eb) => eb.fn.coalesce(eb.selectFrom('jobs as s').select((x) => x.fn.max('s.started_at').as('m')).whereRef('s.owner_id', '=', 'j.owner_id'), eb.lit(-1)), 'asc')
          .orderBy('j.created_at', 'asc')
          .orderBy('j.id', 'asc')
          .limit(1)
          .executeTakeFirst();
        if (!next) return null;
        const taken = await trx
          .updateTable('jobs')
          .set((eb) => ({ state: 'running', started_at: now, heartbeat_at: now, attempts: eb('attempts', '+', 1) }))
          .where('id', '=', next.id)
          .where('state', '=', 'queued')
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1 ? { ...next, state: 'running' as const } : null;
      });
    },
    async update(id: number, patch: Updateable<JobsTable>, d: Kysely<DB> = db): Promise<void> {
      await d.updateTable('jobs').set(patch).where('id', '=', id).execute();
    },
    /** Marks every running job (left by a server that died) failed; answers their ids. */
    async failRunning(reason: string, now: number): Promise<Job[]> {
      const rows = await db.selectFrom('jobs').selectAll().where('state', '=', 'running').execute();
      if (rows.length === 0) return [];
      await db
        .updateTable('jobs')
        .set({ state: 'failed', error: reason, finished_at: now })
        .where('id', 'in', rows.map((r) => r.id))
        .where('state', '=', 'running')
        .execute();
      return rows;
    },
  };
}
export type JobsRepo = ReturnType<typeof jobsRepo>;
