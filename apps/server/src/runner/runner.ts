import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../db/jobs.js';
import type { Deps } from '../services/deps.js';
import { failure } from '@loupe/contracts';
import { procSampler, type ProcFigures, type ProcSampler } from '../services/monitor-proc.js';
import { publicDetail, type EngineGpu, type EngineRun } from './engine.js';
import { JOB_HANDLERS } from './handlers.js';
import { SHUTDOWN_REASON } from './training-job.js';
import { modelNameOf, recordUsage } from '../services/usage.js';

/** How often a running job proves it is alive and looks for a stop asked by another process. */
const HEARTBEAT_MS = 2000;
/** Other processes may queue work too (and a kick can be lost): look again this often. */
const POLL_MS = 3000;
/** A job stopped for its time limit that ignores SIGTERM this long is killed. */
const KILL_AFTER_MS = 15_000;

interface Running {
  job: Job;
  run: EngineRun | null;
  cancelled: boolean;
  /** Stopped because the server is shutting down, not by the user: the training fails, it is not cancelled. */
  shutdown: boolean;
  /** Stopped because it ran past its time limit (JobHandler.timeoutS): it fails with timeLimit. */
  timedOut: boolean;
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

/**
 * The in-process runner over the jobs table: up to `config.jobConcurrency` jobs at once, claimed in
 * priority-then-age order. Each job works in DATA_DIR/jobs/<id>, deleted when it ends.
 */
export function createRunner(deps: Deps) {
  const running = new Map<number, Running>();
  let closed = false;
  let filling = false;
  const workRoot = path.join(deps.config.dataDir, 'jobs');

  function terminate(r: Running) {
    r.cancelled = true;
    // SIGTERM is the engine's cancel: it stops at the next batch and exits 130.
    if (r.run && r.run.child.exitCode === null) r.run.child.kill('SIGTERM');
  }

  async function execute(job: Job) {
    const entry: Running = { job, run: null, cancelled: false, shutdown: false, timedOut: false, sampler: null, figures: null };
    running.set(job.id, entry);
    const workDir = path.join(workRoot, String(job.id));
    const beat = setInterval(() => {
      void (async () => {
        await deps.jobs.update(job.id, { heartbeat_at: deps.now() });
        const pid = entry.run?.child.pid;
        if (pid !== undefined && entry.run?.child.exitCode === null) {
          entry.sampler ??= procSampler(pid);
          entry.figures = await entry.sampler.sample();
        }
        const fresh = await deps.jobs.find(job.id);
        if (fresh?.cancel_requested) terminate(entry);
      })().catch((e: unknown) => deps.log.error(e, 'job heartbeat failed'));
    }, HEARTBEAT_MS);
    let limit: NodeJS.Timeout | undefined;
    let kill: NodeJS.Timeout | undefined;
    // For the usage ledger, should the model be deleted before the job ends.
    const usage = { startedAt: deps.now(), modelName: await modelNameOf(deps, job.model_id).catch(() => '') };
    try {
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
        onStart: (run) => {
          entry.run = run;
          // A first sample now, so the next heartbeat already knows the CPU share of its interval.
          if (run.child.pid !== undefined) {
            entry.sampler = procSampler(run.child.pid);
            void entry.sampler.sample().then((f) => (entry.figures = f), () => undefined);
          }
          if (entry.cancelled) terminate(entry);
        },
        cancelled: () => entry.cancelled && !entry.shutdown && !entry.timedOut,
        shuttingDown: () => entry.shutdown,
        timedOut: () => entry.timedOut && !entry.shutdown,
      });
    } catch (e) {
      deps.log.error(e, `job ${job.id} failed`);
      // The user reads the reason: one line, no server paths (the log above has the whole error).
      await JOB_HANDLERS[job.kind]?.fail(deps, job, failure('engineExited', `the runner failed: ${publicDetail((e as Error).message)}`)).catch(() => undefined);
    } finally {
      clearTimeout(limit);
      clearTimeout(kill);
      clearInterval(beat);
      // The job's end is recorded by now: write its usage entry (kept when the model is deleted later). Before
      // leaving `running`, so a shutdown waits for it.
      await recordUsage(deps, job, usage).catch((e: unknown) => deps.log.error(e, `usage of job ${job.id} not recorded`));
      running.delete(job.id);
      await fs.promises.rm(workDir, { recursive: true, force: true }).catch(() => undefined);
      kick();
    }
  }

  async function fill() {
    if (filling || closed) return;
    filling = true;
    try {
      while (!closed && running.size < deps.config.jobConcurrency) {
        const job = await deps.jobs.claim(deps.now());
        if (!job) break;
        void execute(job);
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

  return {
    /** Marks jobs a dead server left running as failed (their trainings too), then starts taking work. */
    async start(): Promise<void> {
      const orphans = await deps.jobs.failRunning(SHUTDOWN_REASON, deps.now());
      for (const job of orphans) {
        await JOB_HANDLERS[job.kind]?.fail(deps, job, SHUTDOWN_REASON);
        await recordUsage(deps, job, { startedAt: Number(job.started_at ?? job.finished_at ?? deps.now()), modelName: '' }).catch((e: unknown) =>
          deps.log.error(e, `usage of job ${job.id} not recorded`),
        );
        await fs.promises.rm(path.join(workRoot, String(job.id)), { recursive: true, force: true });
      }
      kick();
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
