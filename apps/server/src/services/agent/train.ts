import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { TrainingRow } from '../../db/trainings.js';
import { AppError } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import { runTrainingJob, type TrainingPayload } from '../../runner/training-job.js';
import { assertTrainingParams } from '../training/parameters.js';
import { createAgentTraining } from '../training/trainings.js';
import { AgentFailure, checkHalt, stepContext, type AgentJob } from './job.js';

/** Validation fitness of one epoch's metrics, as the engine ranks epochs (README: detection 0.1 mAP50 + 0.9 mAP50-95). */
export function fitnessOf(metrics: Record<string, unknown>): number | null {
  const n = (k: string) => (typeof metrics[k] === 'number' ? (metrics[k] as number) : null);
  const m50 = n('mAP50');
  const m5095 = n('mAP50-95');
  if (m50 !== null && m5095 !== null) return 0.1 * m50 + 0.9 * m5095;
  return n('top1') ?? n('mIoU') ?? n('char_acc') ?? m50;
}

/**
 * Trains one version inside the agent's job: created (with `record` in the same transaction, so a takeover finds
 * it) unless `existing` names it, then run by runTrainingJob with `seconds` as its wall-clock limit (the engine
 * stops there with its best epoch). A takeover (attempt > 1) resumes it from its stored checkpoint. Answers the
 * succeeded training; a training that failed fails the run with its reason.
 */
export async function trainVersion(
  a: AgentJob,
  opts: { params: Record<string, unknown>; seconds: number; existing?: number; record: (trx: Kysely<DB>, id: number) => Promise<void> },
): Promise<TrainingRow> {
  const { deps, ctx } = a;
  let id = opts.existing;
  if (id === undefined) {
    try {
      // The rules a start checks (the tuner's and the analysis's values included), one message per problem.
      assertTrainingParams(opts.params, a.settings.language);
      const model = (await deps.models.find(a.job.owner_id, a.model.id)) ?? a.model;
      id = await createAgentTraining(deps, model, { params: opts.params, jobId: a.job.id, agentId: a.rec.id, within: opts.record });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      throw new AgentFailure(errorMessage(a.settings.language, e.key, e.vars));
    }
  }
  let t = (await deps.trainings.byId(id))!;
  if (t.status !== 'succeeded') {
    const payload: TrainingPayload = { trainingId: id, maxSeconds: Math.max(10, Math.floor(opts.seconds)) };
    await runTrainingJob(deps, { ...a.job, payload: JSON.stringify(payload) }, await stepContext(a, `training-${id}`));
    t = (await deps.trainings.byId(id))!;
  }
  checkHalt(ctx);
  if (t.status !== 'succeeded') throw new AgentFailure(t.error ?? `v${t.version}: ${t.status}`);
  return t;
}

/** Whether the run was still learning when it ended: stopped by time with the fitness of the last epochs rising, or its best epoch among the last tenth. */
export async function stillImproving(a: AgentJob, t: TrainingRow): Promise<{ from: number; to: number; a: number; b: number } | null> {
  const summary = t.summary ? (JSON.parse(t.summary) as Record<string, unknown>) : {};
  const history = (await a.deps.trainings.epochs(t.id)).map((e) => ({ epoch: e.epoch, fit: fitnessOf(JSON.parse(e.metrics) as Record<string, unknown>) }));
  const fits = history.filter((h): h is { epoch: number; fit: number } => h.fit !== null);
  if (fits.length < 2) return null;
  const last = fits.slice(-3);
  const first = last[0]!;
  const end = last.at(-1)!;
  const rising = summary.stopped_by === 'time' && end.fit > first.fit;
  const total = Number(summary.total_epochs ?? fits.length);
  const best = Number(summary.best_epoch ?? 0);
  const lateBest = total >= 3 && best > total - Math.max(1, Math.ceil(total / 10));
  return rising || lateBest ? { from: first.epoch, to: end.epoch, a: Number(first.fit.toFixed(3)), b: Number(end.fit.toFixed(3)) } : null;
}
