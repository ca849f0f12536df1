import fs from 'node:fs';
import path from 'node:path';
import type { Job, JobKind } from '../db/jobs.js';
import type { Deps } from '../services/deps.js';
import type { JobQueue, Lease } from '../adapters/job-queue.js';
import { failure } from '@loupe/contracts';
import { procSampler, type ProcFigures, type ProcSampler } from '../services/monitor-proc.js';
import { publicDetail, type EngineGpu, type EngineRun } from './engine.js';
import { JOB_HANDLERS } from './handlers.js';
import { modelNameOf, recordUsage } from '../services/usage.js';

/** Other processes may queue work too (and a kick can be lost): look again this often. */
const POLL_MS = 3000;
/** A job stopped for its time limit (or whose lease was lost) that ignores SIGTERM this long is killed. */
const KILL_AFTER_MS = 15_000;

interface Running {
  job: Job;
  lease: Lease;
  run: EngineRun | null;
  cancelled: boolean;
  /** Stopped because the server is shutting down, not by the user: the training fails, it is not cancelled. */
  shutdown: boolean;
  /** Stopped because it ran past its time limit (JobHandler.timeoutS): it fails with timeLimit. */
  timedOut: boolean;
  /** The lease expired or the job left the queue: another runner owns it now, so this one records nothing. */
  lost: boolean;
  /** The engine process's CPU and memory, sampled at each heartbeat (the monitor page). */
  sampler: ProcSampler | null;
  figures: ProcFigures | null;
}

/** What the monitor reads of a job running in this process (issue 31 item 3). */
export interface JobLive {
  pid: number | null;
  figures: ProcFigures | null;
  /** The engine's last log lines, as written (the monitor cuts paths). */
  logs: string[];
  gpu: EngineGpu | null;
}

export interface RunnerOptions {
  queue: JobQueue;
  /** This runner's name in leases and logs. */
  id: string;
  kinds: readonly JobKind[];
  /** Jobs at once. */
  concurrency: number;
  /** Local scratch: each job works in <workRoot>/<job id>, deleted when it ends. */
  workRoot: string;
}

/**
 * A runner: takes jobs from the JobQueue (up to `concurrency` at once, of its kinds), runs each through its
 * handler, and proves it is alive by heartbeats on the lease. It lives inside the server (`npm start`) or in its
 * own process (`npm run runner`, runner-main.ts) on any host with the engine: it needs the database and the
 * blob store, no shared files. A runner that dies stops heartbeating; once its lease expires another runner
 * takes the job over (dispatch.ts reaps) and a training resumes from its checkpoint in the blob store.
 */
export function createRunner(deps: Deps, opts: RunnerOptions) {
  const running = new Map<number, Running>();
  let closed = false;
  let filling = false;
  const heartbeatMs = Math.max(200, Math.min(2000, Math.floor(deps.config.queue.leaseMs / 3)));

  function terminate(r: Running) {
    r.cancelled = true;
    // SIGTERM is the engine's cancel: it stops at the next batch and exits 130.
    if (r.run && r.run.child.exitCode === null) r.run.child.kill('SIGTERM');
  }

  async function beat(entry: Running) {
    if (entry.lost) return;
    const held = await opts.queue.heartbeat(entry.lease);
    if (!held) {
      deps.log.warn(`job ${entry.job.id} (${entry.job.kind}): lease lost, another runner owns it now; stopping here`);
      entry.lost = true;
      terminate(entry);
      setTimeout(() => {
        if (entry.run && entry.run.child.exitCode === null) entry.run.child.kill('SIGKILL');
      }, KILL_AFTER_MS).unref();
      return;
    }
    await deps.jobs.update(entry.job.id, { heartbeat_at: deps.now() });
    const pid = entry.run?.child.pid;
    if (pid !== undefined && entry.run?.child.exitCode === null) {
      entry.sampler ??= procSampler(pid);
      entry.figures = await entry.sampler.sample();
    }
    const fresh = await deps.jobs.find(entry.job.id);
    if (fresh?.cancel_requested) terminate(entry);
  }

  async function execute(job: Job, lease: Lease) {
    const entry: Running = { job, lease, run: null, cancelled: false, shutdown: false, timedOut: false, lost: false, sampler: null, figures: null };
    running.set(job.id, entry);
    const workDir = path.join(opts.workRoot, String(job.id));
    let beating = false;
    const beater = setInterval(() => {
      if (beating) return;
      beating = true;
      beat(entry)
        .catch((e: unknown) => deps.log.error(e, 'job heartbeat failed'))
        .finally(() => (beating = false));
    }, heartbeatMs);
    let limit: NodeJS.Timeout | undefined;
    let kill: NodeJS.Timeout | undefined;
    // For the usage ledger, should the model be deleted before the job ends.
    const usage = { startedAt: deps.now(), modelName: await modelNameOf(deps, job.model_id).catch(() => '') };
    try {
      // A stop that came between the claim and this job's entry above found nothing here to stop: its
      // cancel_requested is read now (a later stop finds the entry). Seen once in CI: a one-image test ran to success.
      if ((await deps.jobs.find(job.id))?.cancel_requested) entry.cancelled = true;
      await fs.promises.rm(workDir, { recursive: true, force: true });
      await fs.promises.mkdir(workDir, { recursive: true });
      const handler = JOB_HANDLERS[job.kind];
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      // Fair use: no job holds a slot past its time limit; SIGTERM first (the engine stops at its next batch), then SIGKILL.
      const limitS = (await handler.timeoutS?.(deps, job)) ?? null;
      if (limitS !== null) {
        limit = setTimeout(() => {
          deps.log.warn(`job ${job.id} (${job.kind}) ran past its limit of ${Math.round(limitS)} s: stopping it`);
          entry.timedOut = true;
          terminate(entry);
          kill = setTimeout(() => {
            if (entry.run && entry.run.child.exitCode === null) entry.run.child.kill('SIGKILL');
          }, KILL_AFTER_MS);
        }, limitS * 1000);
      }
      await handler.run(deps, job, {
        workDir,
        attempt: lease.attempt,
        onStart: (run) => {
          entry.run = run;
          // A first sample now, so the next heartbeat already knows the CPU share of its interval.
          if (run.child.pid !== undefined) {
            entry.sampler = procSampler(run.child.pid);
            void entry.sampler.sample().then((f) => (entry.figures = f), () => undefined);
          }
          if (entry.cancelled) terminate(entry);
        },
        cancelled: () => entry.cancelled && !entry.shutdown && !entry.timedOut && !entry.lost,
        shuttingDown: () => entry.shutdown && !entry.lost,
        timedOut: () => entry.timedOut && !entry.shutdown && !entry.lost,
        lost: () => entry.lost,
      });
    } catch (e) {
      deps.log.error(e, `job ${job.id} failed`);
      // The user reads the reason: one line, no server paths (the log above has the whole error).
      if (!entry.lost) await JOB_HANDLERS[job.kind]?.fail(deps, job, failure('engineExited', `the runner failed: ${publicDetail((e as Error).message)}`)).catch(() => undefined);
    } finally {
      clearTimeout(limit);
      clearTimeout(kill);
      clearInterval(beater);
      if (!entry.lost) {
        // The job's end is recorded by now: write its usage entry (kept when the model is deleted later). Before
        // leaving `running`, so a shutdown waits for it.
        await recordUsage(deps, job, usage).catch((e: unknown) => deps.log.error(e, `usage of job ${job.id} not recorded`));
        await opts.queue.complete(lease).catch((e: unknown) => deps.log.error(e, `job ${job.id} not released`));
      }
      running.delete(job.id);
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      kick();
    }
  }

  /** Takes one leased job: its row as the database has it now, marked running by this runner. */
  async function take(lease: Lease): Promise<Job | null> {
    const row = await deps.jobs.find(lease.jobId);
    // Cancelled while it waited, or its model deleted: nothing to run.
    if (!row || (row.state !== 'queued' && row.state !== 'running')) {
      await opts.queue.complete(lease);
      return null;
    }
    const now = deps.now();
    // The db queue marked the row when it leased it; BullMQ's lease is in Redis, so the record follows here.
    await deps.jobs.update(row.id, { state: 'running', attempts: lease.attempt, started_at: row.started_at ?? now, heartbeat_at: now, lease_owner: opts.queue.kind === 'db' ? row.lease_owner : opts.id });
    return { ...row, state: 'running', attempts: lease.attempt };
  }

  async function fill() {
    if (filling || closed) return;
    filling = true;
    try {
      while (!closed && running.size < opts.concurrency) {
        const lease = await opts.queue.claim(opts.id, opts.kinds);
        if (!lease) break;
        const job = await take(lease);
        if (job) void execute(job, lease);
      }
    } catch (e) {
      deps.log.error(e, 'claiming a job failed');
    } finally {
      filling = false;
    }
  }

  function kick() {
    void fill();
  }

  const poll = setInterval(kick, POLL_MS);
  poll.unref();

  /**
   * Work folders a killed runner left in this work root: those of jobs no runner is running now. A running job's
   * folder may belong to another runner on this host sharing DATA_DIR, so it stays.
   */
  async function sweepWorkRoot(): Promise<void> {
    const names = await fs.promises.readdir(opts.workRoot).catch(() => [] as string[]);
    for (const name of names) {
      if (!/^[1-9][0-9]{0,14}$/.test(name) || running.has(Number(name))) continue;
      const dir = path.join(opts.workRoot, name);
      // Made a moment ago: another runner on this host may have just taken that job.
      const st = await fs.promises.stat(dir).catch(() => null);
      if (!st || st.mtimeMs > Date.now() - 60_000) continue;
      const job = await deps.jobs.find(Number(name));
      if (job?.state === 'running') continue;
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }

  return {
    id: opts.id,
    start(): void {
      sweepWorkRoot()
        .catch((e: unknown) => deps.log.error(e, 'sweeping old work folders failed'))
        .finally(kick);
    },
    kick,
    /** Stops a running job here (a job running in another process sees cancel_requested on its heartbeat). */
    cancel(jobId: number): boolean {
      const r = running.get(jobId);
      if (!r) return false;
      terminate(r);
      return true;
    },
    /** The engine process, its figures and last log lines of a job running here; null when it is not. */
    inspect(jobId: number): JobLive | null {
      const r = running.get(jobId);
      if (!r) return null;
      return { pid: r.run?.child.pid ?? null, figures: r.figures, logs: r.run?.logs() ?? [], gpu: r.run?.gpu() ?? null };
    },
    /** Jobs running here now. */
    busy: () => running.size,
    /** On shutdown: stop every engine and wait, so no training is left marked running. */
    async close(): Promise<void> {
      closed = true;
      clearInterval(poll);
      const waits = [...running.values()].map((r) => {
        r.shutdown = true;
        terminate(r);
        return r.run?.exited;
      });
      await Promise.all(waits);
      // Let each job's own handler record its final state.
      while (running.size > 0) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
export type Runner = ReturnType<typeof createRunner>;
