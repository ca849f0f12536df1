import type { Kysely } from 'kysely';
import type { SuggestedConfidences } from '@loupe/contracts';
import type { DB } from '../../db/schema.js';
import type { TrainingRow } from '../../db/trainings.js';
import { AppError } from '../../errors.js';
import { errorMessage, failureText } from '../../i18n.js';
import { runTestJob, type TestPayload } from '../../runner/test-job.js';
import { insertTestRun } from '../testing/tests.js';
import { labelNames, runDetails, storeSuggested, suggestConfidences } from '../testing/suggest.js';
import { classScores, countsAt, f1Of } from '../testing/scores.js';
import { checkHalt, stepContext, type AgentJob } from './job.js';

/** The agent's tests keep detections from this confidence on, so the curves and the suggestions have room. */
export const AGENT_TEST_CONF = 0.05;

export interface Evaluation {
  testRunId: number;
  suggested: SuggestedConfidences | null;
  /** What versions are compared by: mAP50 of the test when it has one, else F1 at the suggested confidence. */
  score: number | null;
  /** F1 per class at the suggested confidence. */
  perClassF1: Record<string, number>;
}

const pct = (v: number) => Math.round(v * 100);
const round2 = (v: number) => Number(v.toFixed(2));

/**
 * Tests a version on the test split (the validation split when the test split is empty) inside the agent's job,
 * stores the suggested confidences with the version and logs them. Null (logged) when there is nothing to test
 * or the test fails: the version stays, without a suggestion.
 */
export async function evaluate(a: AgentJob, t: TrainingRow, record: (trx: Kysely<DB>, testRunId: number) => Promise<void>): Promise<Evaluation | null> {
  const { deps, ctx } = a;
  const model = (await deps.models.find(a.job.owner_id, a.model.id)) ?? a.model;
  let split: 'test' | 'valid' = 'test';
  let images = await deps.images.all(model.id, 'test');
  if (images.length === 0) {
    split = 'valid';
    images = await deps.images.all(model.id, 'valid');
  }
  let testRunId: number;
  try {
    testRunId = await insertTestRun(deps, model, t, { imageIds: images.map((i) => i.id), settings: { conf: AGENT_TEST_CONF, iou: 0.6, half: false, agnostic: false, tta: 'off' } }, a.job.id);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    await a.rec.log('testFailed', { version: t.version, detail: errorMessage(a.settings.language, e.key, e.vars) });
    return null;
  }
  await deps.db.transaction().execute((trx) => record(trx, testRunId));
  await a.rec.log(split === 'test' ? 'testOnTest' : 'testOnValid', { version: t.version, count: images.length });
  await runTestJob(deps, { ...a.job, payload: JSON.stringify({ testRunId } satisfies TestPayload) }, await stepContext(a, `test-${testRunId}`));
  checkHalt(ctx);
  const run = await deps.testRuns.byId(testRunId);
  if (run?.status !== 'succeeded') {
    await a.rec.log('testFailed', { version: t.version, detail: failureText(a.settings.language, run?.error ?? null) ?? run?.status ?? '' });
    return null;
  }
  const suggested = await suggestConfidences(deps, testRunId, { recallTarget: a.settings.recallTarget, ngLabelIds: a.settings.ngLabelIds });
  const summary = run.summary ? (JSON.parse(run.summary) as Record<string, unknown>) : {};
  const perClassF1 = suggested ? await classF1(a, testRunId, suggested.f1.overall) : {};
  if (suggested) {
    await storeSuggested(deps, t.id, suggested);
    const { f1, recall } = suggested;
    const base = { version: t.version, conf: round2(f1.overall), f1: round2(f1.f1), recall: pct(recall.target) };
    await a.rec.log(recall.conf === null ? 'suggestedNoRecall' : 'suggested', recall.conf === null ? base : { ...base, recallConf: round2(recall.conf) });
  } else {
    await a.rec.log('noSuggestion', { version: t.version });
  }
  const map50 = typeof summary.mAP50 === 'number' ? summary.mAP50 : null;
  return { testRunId, suggested, score: map50 ?? suggested?.f1.f1 ?? null, perClassF1 };
}

async function classF1(a: AgentJob, testRunId: number, conf: number): Promise<Record<string, number>> {
  const names = await labelNames(a.deps, a.model.id);
  const classes = classScores((await runDetails(a.deps, testRunId)).details, names).filter((c) => c.support > 0);
  return Object.fromEntries(classes.map((c) => [c.name, f1Of(countsAt(c, conf))]));
}
