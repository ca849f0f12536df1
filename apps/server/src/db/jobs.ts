import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, JobKind, JobsTable } from './schema.js';

export type { JobKind };

export type Job = Selectable<JobsTable>;

/** The durable queue. Claiming is a conditional update, so two runners never take the same job. */
export function jobsRepo(db: Kysely<DB>) {
  return {
    async insert(d: Kysely<DB>, row: Insertable<JobsTable>): Promise<number> {
      return (await d.insertInto('jobs').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    find: (id: number) => db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The next queued job: higher account priority first, then the oldest; null when none or it was taken. */
    async claim(now: number): Promise<Job | null> {
      return db.transaction().execute(async (trx) => {
        const next = await trx
          .selectFrom('jobs')
          .selectAll()
          .where('state', '=', 'queued')
          .orderBy('priority', 'desc')
          .orderBy('created_at', 'asc')
          .orderBy('id', 'asc')
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
