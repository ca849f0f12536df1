import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { TrainingRow } from '../../db/trainings.js';
import { setDefaultVersion } from '../versions.js';
import { evaluate } from './evaluate.js';
import { AgentFailure, type AgentJob } from './job.js';
import type { AgentRecorder } from './record.js';
import { stateOf } from './view.js';
import { stillImproving, trainVersion } from './train.js';

/** A retrain shorter than this learns nothing worth a test: the log says so instead. */
const MIN_RETRAIN_S = 20;
/** What a retrain leaves for testing it, of the time left. */
const RETRAIN_TEST_SHARE = 0.2;

/** Records a version or test run in the agent's state, in the transaction that creates it. */
async function append(rec: AgentRecorder, key: 'trainingIds' | 'testRunIds', id: number, trx: Kysely<DB>): Promise<void> {
  // Read in the transaction: SQLite has one connection, a read outside it would wait for it forever.
  const row = await trx.selectFrom('agent_runs').selectAll().where('id', '=', rec.id).executeTakeFirstOrThrow();
  const s = stateOf(row);
  await trx.updateTable('agent_runs').set({ state: JSON.stringify({ ...s, [key]: [...s[key], id] }) }).where('id', '=', rec.id).execute();
}

async function trainingOf(a: AgentJob, id: number): Promise<TrainingRow> {
  const t = await a.deps.trainings.byId(id);
  if (!t) throw new AgentFailure(`training ${id} is gone`);
  return t;
}

/** Phase 3: the main version with the chosen configuration, for the phase's seconds. */
export async function trainMain(a: AgentJob, seconds: number): Promise<void> {
  const s = await a.rec.state();
  const params = s.chosenParams ?? s.baseParams ?? {};
  const t = await trainVersion(a, { params, seconds, existing: s.trainingIds[0], record: (trx, id) => append(a.rec, 'trainingIds', id, trx) });
  const summary = t.summary ? (JSON.parse(t.summary) as Record<string, unknown>) : {};
  await a.rec.log('trained', { version: t.version, epochs: Number(summary.total_epochs ?? t.epoch), best: Number(summary.best_epoch ?? 0), seconds: Math.round(Number(summary.total_time_s ?? 0)) });
}

/** Phase 4: tests the main version and stores its suggested confidences. */
export async function testMain(a: AgentJob): Promise<void> {
  const s = await a.rec.state();
  const t = await trainingOf(a, s.trainingIds[0]!);
  const e = await evaluate(a, t, (trx, id) => append(a.rec, 'testRunIds', id, trx));
  await a.rec.saveState({ bestTrainingId: t.id, scores: e?.score != null ? { [t.id]: e.score } : {}, perClassF1: e?.perClassF1 ?? null });
}

/** Rule (b): one class's F1 under half the median of the others' (two classes or more). */
function weakClass(perClassF1: Record<string, number>): { name: string; f1: number; median: number } | null {
  const entries = Object.entries(perClassF1);
  if (entries.length < 2) return null;
  let worst: { name: string; f1: number; median: number } | null = null;
  for (const [name, f1] of entries) {
    const others = entries.filter(([n]) => n !== name).map(([, v]) => v).sort((x, y) => x - y);
    const mid = others.length / 2;
    const median = others.length % 2 ? others[Math.floor(mid)]! : (others[mid - 1]! + others[mid]!) / 2;
    if (f1 < median / 2 && (!worst || f1 < worst.f1)) worst = { name, f1, median };
  }
  return worst;
}

const r2 = (v: number) => Number(v.toFixed(2));

/**
 * Phase 5: at most one retrain when a rule fires, (a) still improving at the end → continue from the version's
 * weights for the time left, else (b) one class far below the others → class-balanced sampling; the retrain is
 * tested, and the better of the two on the test becomes the model's default version. The log gives the rule and
 * its reason either way.
 */
export async function retrain(a: AgentJob, seconds: number): Promise<void> {
  const s = await a.rec.state();
  const main = await trainingOf(a, s.trainingIds[0]!);
  const improving = await stillImproving(a, main);
  const weak = s.perClassF1 ? weakClass(s.perClassF1) : null;
  const chosen = s.chosenParams ?? s.baseParams ?? {};
  let params: Record<string, unknown> | null = null;
  if (s.trainingIds.length < 2) {
    if (improving) {
      // `pretrained` names a version by its id in decimal digits (contracts training.ts, rule trainingId).
      params = { ...chosen, pretrained: String(main.id) };
      await a.rec.log('retrainImproving', { version: main.version, ...improving, seconds: Math.round(seconds * (1 - RETRAIN_TEST_SHARE)) });
    } else if (weak) {
      params = { ...chosen, balance: true };
      await a.rec.log('retrainBalance', { version: main.version, name: weak.name, f1: r2(weak.f1), median: r2(weak.median), seconds: Math.round(seconds * (1 - RETRAIN_TEST_SHARE)) });
    } else {
      await a.rec.log('retrainNone', { version: main.version });
      return makeDefault(a, main);
    }
    if (seconds < MIN_RETRAIN_S) {
      await a.rec.log('retrainNoTime', { seconds: Math.round(seconds) });
      return makeDefault(a, main);
    }
  }
  const second = await trainVersion(a, { params: params ?? chosen, seconds: seconds * (1 - RETRAIN_TEST_SHARE), existing: s.trainingIds[1], record: (trx, id) => append(a.rec, 'trainingIds', id, trx) });
  const e = await evaluate(a, second, (trx, id) => append(a.rec, 'testRunIds', id, trx));
  const mainScore = s.scores?.[main.id] ?? null;
  const better = e?.score != null && (mainScore === null || e.score > mainScore);
  await a.rec.log(better ? 'bestRetrain' : 'bestMain', { best: better ? second.version : main.version, other: better ? main.version : second.version, bestScore: r2((better ? e?.score : mainScore) ?? 0), otherScore: r2((better ? mainScore : e?.score) ?? 0) });
  await makeDefault(a, better ? second : main);
}

async function makeDefault(a: AgentJob, t: TrainingRow): Promise<void> {
  const model = (await a.deps.models.find(a.job.owner_id, a.model.id)) ?? a.model;
  await setDefaultVersion(a.deps, model, t.id);
  await a.rec.saveState({ bestTrainingId: t.id });
  await a.rec.log('defaultVersion', { version: t.version });
}
