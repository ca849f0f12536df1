import { randomBytes } from 'node:crypto';
import { PostgresAdapter, type Kysely } from 'kysely';
import type { DB, JobKind } from '../db/schema.js';
import type { JobQueue, JobQueueOptions, Lease, ReapResult } from './job-queue.js';

/** A claim that lost this many races in a row gives up for now (the runner polls again). */
const CLAIM_TRIES = 50;

/** A lease token: the runner's id (for an operator reading the row) and randomness; lease_owner is varchar(64). */
export function leaseToken(runnerId: string): string {
  return `${runnerId.slice(0, 40)}:${randomBytes(8).toString('hex')}`;
}

/**
 * The embedded JobQueue: the jobs table itself. A 'queued' row waits; a claim turns it 'running' with a lease
 * (lease_owner = a token, lease_until) by a conditional update, so two processes on one database never take the
 * same job. One statement, no transaction: on SQLite a read that upgrades to a write inside a transaction fails
 * with SQLITE_BUSY when another connection writes first.
 */
export function dbJobQueue(db: Kysely<DB>, opts: JobQueueOptions & { now?: () => number }): JobQueue {
  const now = opts.now ?? Date.now;

  // PostgreSQL: a claim skips rows another claim has locked, so concurrent claimers take different jobs instead
  // of all racing for the head (SQLite runs one write at a time: a statement sees the last commit).
  const skipLocked = db.getExecutor().adapter instanceof PostgresAdapter;

  /**
   * The next queued row of these kinds: higher priority first; within a priority, the account with fewer running
   * jobs, then the one served longest ago (its last job's start; never served comes first), then the oldest job.
   * So one account's queue of jobs cannot keep another account's job of the same priority waiting behind all of it.
   */
  const next = (kinds: readonly JobKind[]) => {
    const q = db
      .selectFrom('jobs as j')
      .select('j.id')
      .where('j.state', '=', 'queued')
      .where('j.kind', 'in', [...kinds])
      .orderBy('j.priority', 'desc')
      .orderBy((eb) => eb.selectFrom('jobs as r').select((x) => x.fn.countAll().as('n')).whereRef('r.owner_id', '=', 'j.owner_id').where('r.state', '=', 'running'), 'asc')
      .orderBy((eb) => eb.fn.coalesce(eb.selectFrom('jobs as s').select((x) => x.fn.max('s.started_at').as('m')).whereRef('s.owner_id', '=', 'j.owner_id'), eb.lit(-1)), 'asc')
      .orderBy('j.created_at', 'asc')
      .orderBy('j.id', 'asc')
      .limit(1);
    return skipLocked ? q.forUpdate().skipLocked() : q;
  };
  const anyQueued = async (kinds: readonly JobKind[]) =>
    !!(await db.selectFrom('jobs').select('id').where('state', '=', 'queued').where('kind', 'in', [...kinds]).limit(1).executeTakeFirst());

  return {
    kind: 'db',
    // The committed row is the queue entry.
    async enqueue() {},

    async claim(runnerId, kinds) {
      if (kinds.length === 0) return null;
      for (let i = 0; i < CLAIM_TRIES; i++) {
        const t = now();
        const token = leaseToken(runnerId);
        // One statement: the row is chosen and taken together; state = 'queued' again in case another claim took
        // it between (PostgreSQL re-reads a row it waited for).
        const taken = await db
          .updateTable('jobs')
          .set((eb) => ({
            state: 'running',
            attempts: eb('attempts', '+', 1),
            // A requeued job keeps its first start (usage, and the fair order's "served longest ago").
            started_at: eb.fn.coalesce('started_at', eb.val(t)),
            heartbeat_at: t,
            lease_owner: token,
            lease_until: t + opts.leaseMs,
          }))
          .where('id', '=', next(kinds))
          .where('state', '=', 'queued')
          .returning(['id', 'kind', 'attempts'])
          .executeTakeFirst();
        if (taken) return { jobId: taken.id, kind: taken.kind, runnerId, token, attempt: Number(taken.attempts) };
        // None waits, or another process took the one we chose: look again only in the second case.
        if (!(await anyQueued(kinds))) return null;
      }
      return null;
    },

    async heartbeat(lease) {
      const t = now();
      const r = await db
        .updateTable('jobs')
        .set({ lease_until: t + opts.leaseMs, heartbeat_at: t })
        .where('id', '=', lease.jobId)
        .where('lease_owner', '=', lease.token)
        .where('state', '=', 'running')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async complete(lease: Lease) {
      // A handler that returned without recording an outcome must not leave its job running forever.
      await db
        .updateTable('jobs')
        .set((eb) => ({ state: 'failed', finished_at: now(), error: eb.fn.coalesce('error', eb.val('The job ended without recording its outcome.')) }))
        .where('id', '=', lease.jobId)
        .where('lease_owner', '=', lease.token)
        .where('state', '=', 'running')
        .execute();
      await db.updateTable('jobs').set({ lease_owner: null, lease_until: null }).where('id', '=', lease.jobId).where('lease_owner', '=', lease.token).execute();
    },

    async remove(jobId) {
      await db.updateTable('jobs').set({ state: 'cancelled', finished_at: now() }).where('id', '=', jobId).where('state', '=', 'queued').execute();
      // The runner's next heartbeat answers false and it stops the job. lease_until stays: should that runner die
      // before recording the end, reap finds the row when the lease runs out and gives it up (never requeues it).
      await db.updateTable('jobs').set({ lease_owner: null }).where('id', '=', jobId).where('state', '=', 'running').execute();
    },

    async reap(): Promise<ReapResult> {
      const t = now();
      const expired = await db
        .selectFrom('jobs')
        .select(['id', 'attempts', 'lease_owner', 'lease_until'])
        .where('state', '=', 'running')
        .where((eb) => eb.or([eb('lease_until', '<', t), eb.and([eb('lease_until', 'is', null), eb('lease_owner', 'is', null)])]))
        .orderBy('id')
        .execute();
      const result: ReapResult = { requeued: [], exhausted: [] };
      for (const row of expired) {
        // A removed job (owner cleared, lease kept) is never requeued; a row from before leases (both null) is.
        const removed = row.lease_owner === null && row.lease_until !== null;
        const requeue = !removed && Number(row.attempts) < opts.maxAttempts;
        // Conditional on what was read: of two processes reaping at once, one moves (and reports) the job.
        const r = await db
          .updateTable('jobs')
          .set(requeue ? { state: 'queued', lease_owner: null, lease_until: null } : { state: 'failed', finished_at: t, lease_owner: null, lease_until: null })
          .where('id', '=', row.id)
          .where('state', '=', 'running')
          .where((eb) => (row.lease_until === null ? eb('lease_until', 'is', null) : eb('lease_until', '=', row.lease_until)))
          .where((eb) => (row.lease_owner === null ? eb('lease_owner', 'is', null) : eb('lease_owner', '=', row.lease_owner)))
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) > 0) (requeue ? result.requeued : result.exhausted).push(row.id);
      }
      return result;
    },

    async waiting() {
      const r = await db.selectFrom('jobs').select((eb) => eb.fn.countAll<number | string>().as('n')).where('state', '=', 'queued').executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async close() {},
  };
}
