import type { JobKind } from '../db/schema.js';

/**
 * The JobQueue port (ARCHITECTURE.md, "Embedded default, and the road to scale"): who runs which job next.
 *
 * The jobs table stays the record of every job (kind, owner, payload, state, progress, error) that routes
 * and pages read; the queue only dispatches. Two adapters pass the same contract suite
 * (test/job-queue.contract.test.ts):
 * - embedded (job-queue-db.ts): the jobs table itself, a claim takes a lease (jobs.lease_owner, lease_until);
 * - scale (job-queue-bullmq.ts): BullMQ on Redis (REDIS_URL); the lease is BullMQ's job lock.
 *
 * A job holds its lease while its runner heartbeats. Only an expired lease lets any process (reap) requeue the
 * job for another runner (attempts left) or give it up (attempts spent); a process starting never touches a
 * job another process holds.
 */
export interface QueuedJob {
  id: number;
  kind: JobKind;
  ownerId: number;
  /** The account's training priority when queued: higher first. */
  priority: number;
  createdAt: number;
}

/** A job taken by one runner. `token` proves the holder on heartbeat and complete. */
export interface Lease {
  jobId: number;
  kind: JobKind;
  runnerId: string;
  token: string;
  /** 1 on the first run; more after a lease expired and the job was requeued (the runner then resumes). */
  attempt: number;
}

export interface ReapResult {
  /** Jobs whose lease expired and that were put back in the queue (another runner will take them). */
  requeued: number[];
  /** Jobs whose lease expired with no attempt left: the caller records them failed. */
  exhausted: number[];
}

export interface JobQueueOptions {
  /** How long a claim or a heartbeat holds the job (ms). */
  leaseMs: number;
  /** Runs of one job at most: a job whose lease expires on its last attempt is given up (reap: exhausted). */
  maxAttempts: number;
}

export interface JobQueue {
  readonly kind: 'db' | 'bullmq';
  /**
   * Makes a job whose row is committed (state 'queued') available to runners. The db adapter needs nothing
   * (the row is the queue entry); BullMQ adds it. Idempotent: enqueuing the same id twice queues it once.
   */
  enqueue(job: QueuedJob): Promise<void>;
  /**
   * The next job this runner may run (one of `kinds`), with a fresh lease; null when none waits. Order: higher
   * priority first, then older first (the db adapter also serves accounts of one priority in turn).
   */
  claim(runnerId: string, kinds: readonly JobKind[]): Promise<Lease | null>;
  /** Extends the lease. False when it was lost (expired and reaped, or removed): the runner must stop the job. */
  heartbeat(lease: Lease): Promise<boolean>;
  /** The job ended (its handler recorded the outcome): it leaves the queue for good. */
  complete(lease: Lease): Promise<void>;
  /** Takes a job out of the queue whether waiting or running (a cancel, a deleted model). */
  remove(jobId: number): Promise<void>;
  /** Requeues or gives up the jobs whose lease expired. Any process may call it at any time, as often as it likes. */
  reap(): Promise<ReapResult>;
  /** Jobs waiting (not leased): the back-office's queue length. */
  waiting(): Promise<number>;
  close(): Promise<void>;
}
