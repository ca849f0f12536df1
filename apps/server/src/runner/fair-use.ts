import type { FairUseConfig } from '../config.js';
import { fail } from '../errors.js';

/**
 * Fair use of the job slots (issue 30 item 5): parameter ceilings that follow the host the engine trains on,
 * and the wall-clock budget of a training by plan. The account's job limit is the queue's (db/jobs.ts).
 */

/** Bytes one input pixel costs a training (activations, gradients, decoded batch), rounded up from the n model. */
const TRAIN_BYTES_PER_PIXEL = 1024;
/** The engine's default training size (config.py `imgsz`), for a batch checked without an imgsz. */
const DEFAULT_IMGSZ = 640;

/** The largest fixed batch whose training fits half of the host's memory at `imgsz`. */
export function maxBatch(fair: FairUseConfig, imgsz: number): number {
  return Math.max(1, Math.floor(fair.hardware.memoryBytes / 2 / (imgsz * imgsz * TRAIN_BYTES_PER_PIXEL)));
}

/** A training's wall-clock budget in seconds: the plan's (training priority 0 = standard, above = priority). */
export function planBudgetS(fair: FairUseConfig, priority: number): number {
  return priority > 0 ? fair.trainingMaxS.priority : fair.trainingMaxS.standard;
}

/**
 * Refuses parameters above what this host and the account's plan allow, naming the parameter and its ceiling
 * (run after the engine's own range checks, contracts' checkTrainingParams).
 */
export function assertParamCeilings(fair: FairUseConfig, params: Record<string, unknown>, priority: number): void {
  const num = (key: string): number | null => (typeof params[key] === 'number' ? (params[key] as number) : null);
  const above = (key: string, max: number) => {
    const v = num(key);
    return v !== null && v > max ? v : null;
  };
  const { cores, gpu } = fair.hardware;
  for (const key of ['workers', 'procs']) {
    const v = above(key, cores);
    if (v !== null) fail('ceilingCores', { field: key, max: cores, value: v });
  }
  if (!gpu) {
    for (const key of ['imgsz', 'crop']) {
      const v = above(key, fair.maxImgszCpu);
      if (v !== null) fail('ceilingCpu', { field: key, max: fair.maxImgszCpu, value: v });
    }
  }
  const epochs = above('epochs', fair.maxEpochs);
  if (epochs !== null) fail('ceilingServer', { field: 'epochs', max: fair.maxEpochs, value: epochs });
  // A crop trains on tiles of that size; else the whole image at imgsz.
  const size = num('crop') || num('imgsz') || DEFAULT_IMGSZ;
  const batchMax = maxBatch(fair, size);
  const batch = above('batch', batchMax);
  if (batch !== null) fail('ceilingMemory', { field: 'batch', max: batchMax, value: batch });
  const hoursMax = Math.floor(planBudgetS(fair, priority) / 3600);
  const hours = above('time', hoursMax);
  if (hours !== null) fail('ceilingPlanHours', { field: 'time', max: hoursMax, value: hours });
}

/** The budget the engine gets (`max_seconds`): the user's `time` when set and shorter, else the plan's. */
export function trainingBudgetS(fair: FairUseConfig, params: Record<string, unknown>, priority: number): number {
  const plan = planBudgetS(fair, priority);
  const hours = typeof params.time === 'number' && params.time > 0 ? params.time : null;
  return hours !== null ? Math.min(plan, hours * 3600) : plan;
}

/**
 * How long past its budget a training may run before the runner stops it: the engine checks the budget after
 * each batch and then validates and saves once more, so a slow last epoch gets a tenth of the budget, at least
 * two minutes.
 */
export function trainingGraceS(budgetS: number): number {
  return Math.max(120, budgetS / 10);
}
