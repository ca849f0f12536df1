import { parseTestSettings, type SuggestedConfidences } from '@loupe/contracts';
import type { TrainingRow } from '../../db/trainings.js';
import type { Deps } from '../deps.js';
import type { TestImageDetail } from './record.js';
import { bestF1, classScores, recallConf, type ClassScores } from './scores.js';

/**
 * The confidences to ship from a run's scored decisions: the one that maximises F1 over all classes (and per
 * class), and the highest at which every NG class (`ngNames`; null = all) reaches `recallTarget` recall. Null
 * without ground truth. `floor` is the lowest confidence the run kept.
 */
export function suggestFrom(
  classes: ClassScores[],
  floor: number,
  testRunId: number,
  opts: { recallTarget: number; ngNames: ReadonlySet<string> | null },
): SuggestedConfidences | null {
  const withTruth = classes.filter((c) => c.support > 0);
  if (withTruth.length === 0) return null;
  const overall = bestF1(classes, floor);
  const perClass = Object.fromEntries(withTruth.map((c) => [c.name, bestF1([c], floor).conf]));
  const ng = withTruth.filter((c) => opts.ngNames === null || opts.ngNames.has(c.name));
  const confs = ng.map((c) => recallConf(c, opts.recallTarget));
  const reached = ng.length > 0 && confs.every((c) => c !== null);
  return {
    f1: { overall: overall.conf, f1: overall.f1, perClass },
    recall: { target: opts.recallTarget, conf: reached ? Math.min(...(confs as number[])) : null, classes: ng.map((c) => c.name) },
    testRunId,
  };
}

/** A run's stored images with their results (record.ts TestImageDetail) and their ids, in image order. */
export async function runDetails(deps: Deps, testRunId: number): Promise<{ details: TestImageDetail[]; imageIds: number[] }> {
  const rows = await deps.db.selectFrom('test_run_images').select(['image_id', 'detail']).where('test_run_id', '=', testRunId).orderBy('image_id').execute();
  // Images the run never reached have an empty detail.
  const kept = rows.map((r) => ({ id: r.image_id, d: JSON.parse(r.detail) as Partial<TestImageDetail> })).filter((r) => r.d.predictions !== undefined);
  return {
    details: kept.map(({ d }) => ({ predictions: d.predictions ?? [], groundTruth: d.groundTruth ?? [], classification: d.classification ?? null })),
    imageIds: kept.map((r) => r.id),
  };
}

/** The model's label names by id. */
export async function labelNames(deps: Deps, modelId: number): Promise<Map<number, string>> {
  return new Map((await deps.labels.list(modelId)).map((l) => [l.id, l.name]));
}

/**
 * suggestFrom over a finished run (the agent's auto test). Null when the run has no ground truth, or its task
 * scores no single detection (segmentation: pixels, not instances, are judged).
 */
export async function suggestConfidences(deps: Deps, testRunId: number, opts: { recallTarget: number; ngLabelIds: number[] | null }): Promise<SuggestedConfidences | null> {
  const run = await deps.testRuns.byId(testRunId);
  if (!run) return null;
  const training = await deps.trainings.byId(run.training_id);
  if (!training || training.task === 'segment') return null;
  const names = await labelNames(deps, run.model_id);
  const { details } = await runDetails(deps, testRunId);
  const ngNames = opts.ngLabelIds === null ? null : new Set(opts.ngLabelIds.flatMap((id) => names.get(id) ?? []));
  const floor = parseTestSettings(run.settings).conf;
  return suggestFrom(classScores(details, names, floor), floor, testRunId, { recallTarget: opts.recallTarget, ngNames });
}

/** Stores the suggestion with its version (trainings.suggested_conf); tests, exports and SDKs then default to it. */
export async function storeSuggested(deps: Deps, trainingId: number, s: SuggestedConfidences): Promise<void> {
  await deps.db.updateTable('trainings').set({ suggested_conf: JSON.stringify(s) }).where('id', '=', trainingId).execute();
}

/** The version's stored suggestion, or null. */
export function storedSuggestion(training: Pick<TrainingRow, 'suggested_conf'>): SuggestedConfidences | null {
  return training.suggested_conf ? (JSON.parse(training.suggested_conf) as SuggestedConfidences) : null;
}
