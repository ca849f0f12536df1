import { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobKind } from '../db/schema.js';
import type { JobQueue, JobQueueOptions, Lease, QueuedJob, ReapResult } from './job-queue.js';
import { leaseToken } from './job-queue-db.js';
import { redisConnection } from './redis.js';

/** Every kind, each with its own BullMQ queue. The check below fails to compile when JobKind gains one. */
const KINDS = ['training', 'test', 'export', 'golden', 'analysis', 'agent'] as const;
const allKinds: Exclude<JobKind, (typeof KINDS)[number]> extends never ? true : false = true;
void allKinds;

/**
 * BullMQ serves a lower number first and puts priority 0 ("none") ahead of every prioritized job; ours (0…10,
 * higher first) maps into 1…2^21-1 so every job is prioritized and one order holds.
 */
const PRIORITY_BASE = 1_000_000;
const PRIORITY_LIMIT = 2 ** 21 - 1;
export const bullPriority = (priority: number) => Math.min(Math.max(PRIORITY_BASE - Math.trunc(priority), 1), PRIORITY_LIMIT);

/** Finished entries are kept this long, so a late duplicate enqueue of an ended job stays a no-op. */
const KEEP_FINISHED_S = 24 * 3600;

/** BullMQ refuses integer custom ids ("Custom Id cannot be integers"): the job's row id, prefixed. */
const bullId = (jobId: number) => `job-${jobId}`;
const rowId = (id: string | undefined) => Number(String(id).replace(/^job-/, ''));

interface JobData {
  priority: number;
  createdAt: number;
}

interface PerKind {
  queue: Queue<JobData>;
  worker: Worker<JobData>;
}

/**
 * The scale JobQueue: BullMQ 6 on Redis, with manual processing (Worker without a processor, never run(); the
 * runner fetches with getNextJob and owns the job's lifetime).
 *
 * - Kinds: one BullMQ queue per kind (`<prefix>:jobs-<kind>`), since a BullMQ worker cannot skip jobs it does not
 *   take. A claim over several kinds looks at each queue's head (its requeued jobs first, then the best priority,
 *   then the oldest row) and fetches from the best one; another process may take that head first, and the claim
 *   then gets the next of that kind, a place out of order at worst. Within a kind BullMQ keeps the order exactly:
 *   priority, then enqueue order (the rows are handed over oldest first).
 * - Lease = BullMQ's job lock (lockDuration = leaseMs, token = the lease's token); heartbeat = extendLock. A lock
 *   that ran out cannot be extended, so heartbeat answers false then, even before a reap.
 * - Retry policy: a job is run again only when its lease expired (BullMQ "stalled": its lock ran out while
 *   active), at most maxAttempts runs in all (maxStalledCount = maxAttempts - 1); a job the runner ends, whatever
 *   the outcome, is never retried (attempts: 1, the outcome is in the row). A requeued job goes ahead of its kind's
 *   waiting jobs (BullMQ puts stalled jobs back at the head): it was first in line when it started.
 * - reap() runs BullMQ's stalled check at once (not on its timer): twice, since one pass moves the jobs marked by
 *   the pass before and marks the active ones; an active job without a lock is one whose lease ran out (a claim
 *   locks atomically). The script moves each job once, so each is reported once by one process.
 */
export function bullmqJobQueue(opts: JobQueueOptions & { url: string; prefix?: string }): JobQueue {
  const prefix = opts.prefix ?? 'loupe';
  const maxStalledCount = Math.max(opts.maxAttempts - 1, 0);
  // One connection for every queue and worker (a worker also opens its own blocking one, closed with it).
  let client: Redis | null = null;
  const perKind = new Map<JobKind, PerKind>();
  /** Jobs this process holds, to extend and finish them without reading them again. */
  const held = new Map<number, Job<JobData>>();
  let closed = false;

  function of(kind: JobKind): PerKind {
    if (closed) throw new Error('the BullMQ job queue is closed');
    let k = perKind.get(kind);
    if (!k) {
      client ??= redisConnection(opts.url, 'jobs', { bullmq: true });
      const connection = client;
      const name = `jobs-${kind}`;
      k = {
        queue: new Queue<JobData>(name, { connection, prefix }),
        worker: new Worker<JobData>(name, null, {
          connection,
          prefix,
          autorun: false,
          lockDuration: opts.leaseMs,
          maxStalledCount,
          stalledInterval: opts.leaseMs,
          // Locks are extended by heartbeat only, stalled checks run in reap() only.
          skipLockRenewal: true,
          skipStalledCheck: true,
        }),
      };
      perKind.set(kind, k);
    }
    return k;
  }

  async function find(jobId: number): Promise<{ kind: JobKind; job: Job<JobData> } | null> {
    for (const kind of KINDS) {
      const job = await Job.fromId<JobData>(of(kind).queue, bullId(jobId));
      if (job) return { kind, job };
    }
    return null;
  }

  /** The kinds to try, best head first: requeued jobs, then higher priority, then the older row. */
  async function byHead(kinds: readonly JobKind[]): Promise<JobKind[]> {
    if (kinds.length < 2) return [...kinds];
    const heads: { kind: JobKind; rank: [number, number, number] }[] = [];
    for (const kind of kinds) {
      const { queue } = of(kind);
      const redis = client!;
      const requeued = await redis.lindex(queue.keys.wait!, -1);
      const id = requeued ?? (await redis.zrange(queue.keys.prioritized!, '0', '0'))[0];
      if (!id) continue;
      const data = await redis.hget(queue.toKey(id), 'data');
      const d = data ? (JSON.parse(data) as Partial<JobData>) : {};
      heads.push({ kind, rank: [requeued ? 0 : 1, -(d.priority ?? 0), d.createdAt ?? 0] });
    }
    heads.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.rank[2] - b.rank[2]);
    // Kinds that looked empty last: a job may have arrived since.
    return [...heads.map((h) => h.kind), ...kinds.filter((k) => !heads.some((h) => h.kind === k))];
  }

  return {
    kind: 'bullmq',

    async enqueue(job: QueuedJob) {
      // Same jobId twice: BullMQ keeps the first and ignores the second.
      await of(job.kind).queue.add(
        job.kind,
        { priority: job.priority, createdAt: job.createdAt },
        {
          jobId: bullId(job.id),
          priority: bullPriority(job.priority),
          attempts: 1,
          removeOnComplete: { age: KEEP_FINISHED_S },
          removeOnFail: { age: KEEP_FINISHED_S },
        },
      );
    },

    async claim(runnerId, kinds) {
      for (const kind of await byHead(kinds)) {
        const { worker } = of(kind);
        for (;;) {
          const token = leaseToken(runnerId);
          const job = (await worker.getNextJob(token, { block: false })) as Job<JobData> | undefined;
          if (!job) break;
          if (job.deferredFailure) {
            // Stalled on its last attempt: the reap that moved it reported it exhausted; it is not run again.
            await job.moveToFailed(new Error(job.deferredFailure), token, false).catch(() => undefined);
            continue;
          }
          const jobId = rowId(job.id);
          held.set(jobId, job);
          return { jobId, kind, runnerId, token, attempt: job.attemptsStarted };
        }
      }
      return null;
    },

    async heartbeat(lease) {
      const job = held.get(lease.jobId) ?? (await find(lease.jobId))?.job;
      if (!job) return false;
      // 0 when the lock is gone (ran out, removed) or held by another token (requeued and claimed again).
      return (await job.extendLock(lease.token, opts.leaseMs)) === 1;
    },

    async complete(lease: Lease) {
      const job = held.get(lease.jobId) ?? (await find(lease.jobId))?.job;
      held.delete(lease.jobId);
      // Fails when the lease was lost meanwhile (the job is someone else's now, or removed): nothing of ours to end.
      await job?.moveToCompleted(null, lease.token, false).catch(() => undefined);
    },

    async remove(jobId) {
      held.delete(jobId);
      for (let i = 0; i < 5; i++) {
        const found = await find(jobId);
        if (!found) return;
        const { kind, job } = found;
        const { queue } = of(kind);
        const state = await job.getState();
        if (state === 'completed' || state === 'failed') return;
        if (state === 'active') {
          const token = await client!.get(`${queue.toKey(job.id!)}:lock`);
          // Failing it with its own lock takes the lock away: the runner's next heartbeat answers false.
          if (token) {
            const gone = await job.moveToFailed(new Error('removed from the queue'), token, false).then(
              () => true,
              () => false,
            );
            if (gone) return;
            continue;
          }
        }
        // Waiting, or active with its lease run out: not locked, so BullMQ removes it; 0 when a claim just locked it.
        if ((await queue.remove(job.id!)) === 1) return;
      }
      throw new Error(`job ${jobId} could not be removed from the BullMQ queue (claimed and released repeatedly meanwhile)`);
    },

    async reap(): Promise<ReapResult> {
      const result: ReapResult = { requeued: [], exhausted: [] };
      for (const kind of KINDS) {
        const { queue, worker } = of(kind);
        for (let pass = 0; pass < 2; pass++) {
          // BullMQ skips a check run within stalledInterval of the last one (any process's); ours runs now.
          await client!.del(queue.keys['stalled-check']!);
          const ids = await worker.backend.moveStalledJobsToWait();
          for (const id of ids) {
            const jobId = rowId(id);
            held.delete(jobId);
            const job = await Job.fromId<JobData>(queue, id);
            if (!job) continue;
            if (job.stalledCounter > maxStalledCount) {
              result.exhausted.push(jobId);
              // Locked when a claim took it meanwhile: that claim fails it instead (deferredFailure).
              await queue.remove(id).catch(() => undefined);
            } else {
              result.requeued.push(jobId);
            }
          }
        }
      }
      return result;
    },

    async waiting() {
      let n = 0;
      for (const kind of KINDS) n += await of(kind).queue.getJobCountByTypes('wait', 'prioritized');
      return n;
    },

    async close() {
      if (closed) return;
      closed = true;
      held.clear();
      for (const { queue, worker } of perKind.values()) {
        await worker.close();
        await queue.close();
      }
      perKind.clear();
      // Passed in by us, so BullMQ leaves it open.
      await client?.quit();
      client = null;
    },
  };
}
