import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import { BlobNotFound } from '../../adapters/blob-store.js';
import { linkBlob } from '../../runner/artifacts.js';
import { deviceSpec, engineEnv, runEngine, type EngineEvent } from '../../runner/engine.js';
import { freezeDataset } from '../training/snapshot.js';
import { taskOf } from '../training/trainings.js';
import { checkHalt, type AgentJob } from './job.js';

type Params = Record<string, unknown>;

/** The tuner's `done` summary (engine/AGENT.md, Tuning). */
interface TuneSummary {
  chosen_params?: Params;
  adopted?: boolean | null;
  gain?: number | null;
  noise?: number | null;
  trials?: number;
}

/** What the tuner reports besides the training events (engine/loupe_engine/agent). */
type TuneEvent =
  | EngineEvent
  | { event: 'trial'; number: number; params: Params; state: string; score: number | null; epochs?: number; duration_s?: number | null }
  | { event: 'note'; key: string; params?: Record<string, string | number> };

/** Reasons of a skipped adoption check that the log explains in words (agent.json `note.adoptSkipped.<reason>`). */
const SKIP_REASONS = ['base_best', 'no_time'];

function noteKey(key: string, params: Record<string, string | number>): string {
  const reason = String(params.reason ?? '');
  return key === 'adoptSkipped' && SKIP_REASONS.includes(reason) ? `note.adoptSkipped.${reason}` : `note.${key}`;
}

/** A share the tuner reports as a fraction reads as a percentage. */
function noteParams(params: Record<string, string | number>): Record<string, string | number> {
  const { fraction } = params;
  return typeof fraction === 'number' ? { ...params, fraction: `${Math.round(fraction * 100)} %` } : params;
}

/**
 * Lays out the frozen training data in `dir` as a training's job does: dataset.json and the images linked by hash.
 * Answers whether it has rotated boxes (the task is then the rotated one, as a training's would be).
 */
async function layOut(a: AgentJob, dir: string): Promise<boolean> {
  const frozen = await freezeDataset(a.deps, a.model);
  const imagesDir = path.join(dir, 'images');
  await fs.promises.mkdir(imagesDir, { recursive: true });
  await fs.promises.writeFile(path.join(dir, 'dataset.json'), frozen.json);
  for (const [file, sha] of Object.entries(frozen.blobs)) await linkBlob(a.deps, sha, path.join(imagesDir, file));
  return frozen.hasRotated;
}

/**
 * Phase 2: the engine's `tune` (Optuna TPE with successive halving) from the base configuration, for the phase's
 * seconds; every trial is stored and published, every note logged. The tuned configuration is kept only when the
 * tuner adopted it (it beat the base by more than seed noise). A failed search costs the tuning, not the run: the
 * log says so and training goes on with the base.
 */
export async function tune(a: AgentJob, seconds: number): Promise<void> {
  const { deps, ctx, rec } = a;
  const state = await rec.state();
  const base = state.baseParams ?? {};
  const dir = path.join(ctx.workDir, 'tune');
  await fs.promises.rm(dir, { recursive: true, force: true });
  // A takeover searches again with the time left: the trials of the dead runner are not comparable.
  await deps.db.deleteFrom('agent_trials').where('agent_id', '=', rec.id).execute();
  let summary: TuneSummary | null = null;
  let error: string | null = null;
  let rotated = false;
  try {
    rotated = await layOut(a, dir);
  } catch (e) {
    if (!(e instanceof AppError) && !(e instanceof BlobNotFound)) throw e;
    error = e instanceof AppError ? errorMessage(a.settings.language, e.key, e.vars) : 'an image of the data is no longer stored';
  }
  if (error === null) {
    const spec = { task: taskOf(a.model, rotated), data: 'dataset.json', images: 'images', out: 'tune', params: base, tune: { budget_s: Math.max(1, Math.floor(seconds)), early_stop: a.settings.earlyStop, seeds: 2 }, ...deviceSpec(deps) };
    await fs.promises.writeFile(path.join(dir, 'job.json'), JSON.stringify(spec, null, 1));
    checkHalt(ctx);
    const onEvent = async (raw: EngineEvent) => {
      const e = raw as TuneEvent;
      if (ctx.lost()) return;
      if (e.event === 'trial') await rec.trial(e);
      else if (e.event === 'note') await rec.log(noteKey(e.key, e.params ?? {}), noteParams(e.params ?? {}));
      else if (e.event === 'done') summary = e.summary as TuneSummary;
      else if (e.event === 'error' && e.code !== 'cancelled') error = e.message;
    };
    const run = runEngine(deps.config.engine.command, ['tune', '--spec', 'job.json', '--workdir', dir], { cwd: dir, env: engineEnv(deps.config.engine.pythonPath), onEvent, log: (m) => deps.log.warn(`agent ${rec.id} tune: ${m}`) });
    ctx.onStart(run);
    const code = await run.exited;
    checkHalt(ctx);
    if (code !== 0 && error === null) error = code === null ? 'the engine process was killed' : `exit code ${code}: ${run.tail() || 'no output'}`;
  }
  const done = summary as TuneSummary | null;
  if (error !== null || !done) {
    await rec.log('aiParameterAnalysisFailed', { detail: error ?? 'no summary' });
    await rec.saveState({ chosenParams: base, adopted: null });
    return;
  }
  const adopted = done.adopted === true && done.chosen_params !== undefined;
  await rec.saveState({ chosenParams: adopted ? { ...base, ...done.chosen_params } : base, adopted: done.adopted ?? null });
}
