import { failure } from '@loupe/contracts';
import type { Deps } from '../services/deps.js';
import type { JobQueue } from '../adapters/job-queue.js';
import { JOB_HANDLERS } from './handlers.js';
import { recordUsage } from '../services/usage.js';

/**
 * What every process with a queue does besides running jobs (servers and runners alike; all of it is safe to
 * run in several processes at once):
 * - sync: a job's row is committed first and handed to the queue after (an outbox). Each pass hands every
 *   'queued' row to the queue (idempotent), so a process that died between the commit and the hand-over loses
 *   nothing. The db queue needs nothing: its rows are the queue.
 * - reap: jobs whose runner stopped heartbeating for a whole lease are requeued (another runner takes them over,
 *   a training resumes from its checkpoint in the blob store) or, with no attempt left, failed with a reason.
 */
export function createDispatch(deps: Deps, queue: JobQueue) {
  let syncing: Promise<void> | null = null;
  let reaping: Promise<void> | null = null;

  async function syncNow(): Promise<void> {
    if (queue.kind === 'db') return;
    const rows = await deps.db.selectFrom('jobs').select(['id', 'kind', 'owner_id', 'priority', 'created_at']).where('state', '=', 'queued').orderBy('id').execute();
    for (const r of rows) await queue.enqueue({ id: r.id, kind: r.kind, ownerId: r.owner_id, priority: Number(r.priority), createdAt: Number(r.created_at) });
  }

  async function reapNow(): Promise<void> {
    const { requeued, exhausted } = await queue.reap();
    const now = deps.now();
    for (const id of requeued) {
      // The db queue moved its row back already; BullMQ's record follows here.
      await deps.db.updateTable('jobs').set({ state: 'queued', lease_owner: null, lease_until: null }).where('id', '=', id).where('state', '=', 'running').execute();
      const job = await deps.jobs.find(id);
      if (!job) continue;
      deps.log.warn(`job ${id} (${job.kind}): its runner stopped answering; queued again for another runner (attempt ${job.attempts + 1} of ${deps.config.queue.maxAttempts})`);
      await JOB_HANDLERS[job.kind]?.requeued?.(deps, job);
    }
    for (const id of exhausted) await giveUp(id, now);
    if (queue.kind === 'bullmq') {
      // A row left running whose BullMQ job is gone (Redis restarted without persistence) has no lease to expire:
      // its heartbeat, which every runner writes, says it is dead.
      const stale = now - Math.max(4 * deps.config.queue.leaseMs, 120_000);
      const rows = await deps.db.selectFrom('jobs').select('id').where('state', '=', 'running').where('heartbeat_at', '<', stale).execute();
      for (const r of rows) await giveUp(r.id, now, stale);
    }
  }

  /** Fails a job whose runner is gone for good, and its subject, with the reason a user reads. */
  async function giveUp(id: number, now: number, staleBefore?: number): Promise<void> {
    const job = await deps.jobs.find(id);
    if (!job) return;
    const reason = failure('runnerLost');
    let q = deps.db.updateTable('jobs').set({ state: 'failed', error: reason, finished_at: now, lease_owner: null, lease_until: null }).where('id', '=', id);
    // Two processes sweeping stale rows at once: one of them records it.
    if (staleBefore !== undefined) q = q.where('state', '=', 'running').where('heartbeat_at', '<', staleBefore);
    if (Number((await q.executeTakeFirst()).numUpdatedRows) === 0) return;
    deps.log.warn(`job ${id} (${job.kind}): its runner stopped answering and no attempt is left; failed`);
    await JOB_HANDLERS[job.kind]?.fail(deps, job, reason);
    await recordUsage(deps, job, { startedAt: Number(job.started_at ?? now), modelName: '' }).catch((e: unknown) => deps.log.error(e, `usage of job ${id} not recorded`));
  }

  const once = <T>(get: () => Promise<T> | null, set: (p: Promise<T> | null) => void, run: () => Promise<T>) => {
    const busy = get();
    if (busy) return busy;
    const p = run().finally(() => set(null));
    set(p);
    return p;
  };

  return {
    /** Hands queued rows to the queue now (after a service queued a job). */
    sync: () => once(() => syncing, (p) => (syncing = p), syncNow),
    reap: () => once(() => reaping, (p) => (reaping = p), reapNow),
    /** Sync and reap every `everyMs` until the answered function is called. */
    loop(everyMs: number): () => void {
      const timer = setInterval(() => {
        this.sync().catch((e: unknown) => deps.log.error(e, 'handing jobs to the queue failed'));
        this.reap().catch((e: unknown) => deps.log.error(e, 'reaping expired jobs failed'));
      }, everyMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
export type Dispatch = ReturnType<typeof createDispatch>;
