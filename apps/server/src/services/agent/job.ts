import fs from 'node:fs';
import path from 'node:path';
import type { Job } from '../../db/jobs.js';
import type { Model } from '../../db/models.js';
import type { JobContext } from '../../runner/training-job.js';
import type { Deps } from '../deps.js';
import type { AgentRecorder } from './record.js';
import type { AgentSettings } from './view.js';

/** What every phase of the agent's job works with. */
export interface AgentJob {
  deps: Deps;
  job: Job;
  ctx: JobContext;
  rec: AgentRecorder;
  model: Model;
  settings: AgentSettings;
  /** When the budget ends (ms, wall clock; kept across takeovers). */
  deadline: number;
}

export type HaltReason = 'cancelled' | 'shutdown' | 'timedOut' | 'lost';

/** Thrown when the job must stop between steps: the user cancelled, the server stops, the limit passed, or the lease went. */
export class AgentHalt extends Error {
  constructor(readonly why: HaltReason) {
    super(`agent halted: ${why}`);
  }
}

/** Thrown when the run fails with a stored reason (contracts failures.ts `[code] detail`, or an error message). */
export class AgentFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function haltReason(ctx: JobContext): HaltReason | null {
  if (ctx.lost()) return 'lost';
  if (ctx.shuttingDown()) return 'shutdown';
  if (ctx.timedOut()) return 'timedOut';
  if (ctx.cancelled()) return 'cancelled';
  return null;
}

/** Stops here when the job was asked to stop (checked between steps and after every engine run). */
export function checkHalt(ctx: JobContext): void {
  const why = haltReason(ctx);
  if (why) throw new AgentHalt(why);
}

/** The job's context with a folder of its own for one step (a training's or a test's files never meet). */
export async function stepContext(a: AgentJob, name: string): Promise<JobContext> {
  const workDir = path.join(a.ctx.workDir, name);
  await fs.promises.rm(workDir, { recursive: true, force: true });
  await fs.promises.mkdir(workDir, { recursive: true });
  return { ...a.ctx, workDir };
}

/** Seconds until the budget ends. */
export const secondsLeft = (a: AgentJob) => Math.max(0, (a.deadline - a.deps.now()) / 1000);
