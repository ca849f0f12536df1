import { UsageKinds, type UsageData, type UsageKind, type UsageMonth, type UsageQuery, type UsageResult } from '@loupe/contracts';
import type { Job } from '../db/jobs.js';
import type { Deps } from './deps.js';

const ENTRIES_DEFAULT = 50;
const isUsageKind = (kind: string): kind is UsageKind => (UsageKinds as readonly string[]).includes(kind);
// Six decimals (about 4 ms): at three, a total of a few short jobs (under 1.8 s) read as 0 s on /usage.
const hours = (seconds: number) => Math.round((seconds / 3600) * 1e6) / 1e6;

/**
 * Writes the ledger entry of a training, test or export job that ran, once its end is recorded (the runner calls
 * this when the job's handler returns, and for jobs a dead server left running). Idempotent per job. The model's
 * name is copied, so the entry outlives the model; `fallback` covers a model deleted while its job ran (its job
 * row is gone with it: the entry then counts as cancelled, from the runner's own start time).
 */
export async function recordUsage(deps: Deps, job: Job, fallback: { modelName: string; startedAt: number }): Promise<void> {
  if (!isUsageKind(job.kind)) return;
  const now = deps.now();
  const fresh = await deps.jobs.find(job.id);
  const state = fresh?.state;
  const result: UsageResult = state === 'succeeded' || state === 'cancelled' ? state : fresh ? 'failed' : 'cancelled';
  const startedAt = Number(fresh?.started_at ?? job.started_at ?? fallback.startedAt);
  const finishedAt = Math.max(startedAt, Number(fresh?.finished_at ?? now));
  const model = await deps.db.selectFrom('models').select('name').where('id', '=', job.model_id).executeTakeFirst();
  await deps.db
    .insertInto('usage')
    .values({
      owner_id: job.owner_id,
      job_id: job.id,
      kind: job.kind,
      model_id: job.model_id,
      model_name: model?.name ?? fallback.modelName,
      result,
      seconds: (finishedAt - startedAt) / 1000,
      started_at: startedAt,
      finished_at: finishedAt,
    })
    .onConflict((oc) => oc.column('job_id').doNothing())
    .execute();
}

/** The model's name when its job starts: what the ledger keeps if the model is deleted before the job ends. */
export async function modelNameOf(deps: Deps, modelId: number): Promise<string> {
  return (await deps.db.selectFrom('models').select('name').where('id', '=', modelId).executeTakeFirst())?.name ?? '';
}

/** The signed-in user's usage over the period: totals per kind, per month (UTC) and kind, and the latest entries. */
export async function usageOf(deps: Deps, ownerId: number, q: UsageQuery): Promise<UsageData> {
  let query = deps.db.selectFrom('usage').selectAll().where('owner_id', '=', ownerId);
  if (q.from !== undefined) query = query.where('finished_at', '>=', q.from);
  if (q.to !== undefined) query = query.where('finished_at', '<', q.to);
  const rows = await query.orderBy('finished_at', 'desc').orderBy('id', 'desc').execute();

  const totals = new Map<UsageKind, { count: number; seconds: number }>(UsageKinds.map((k) => [k, { count: 0, seconds: 0 }]));
  const months = new Map<string, { month: string; kind: UsageKind; count: number; seconds: number }>();
  for (const r of rows) {
    const seconds = Number(r.seconds);
    const t = totals.get(r.kind)!;
    t.count += 1;
    t.seconds += seconds;
    const month = new Date(Number(r.finished_at)).toISOString().slice(0, 7);
    const key = `${month} ${r.kind}`;
    const m = months.get(key) ?? { month, kind: r.kind, count: 0, seconds: 0 };
    m.count += 1;
    m.seconds += seconds;
    months.set(key, m);
  }
  const latest = rows.slice(0, q.limit ?? ENTRIES_DEFAULT);
  const modelIds = [...new Set(latest.map((r) => r.model_id))];
  const alive = new Set(
    modelIds.length === 0
      ? []
      : (await deps.db.selectFrom('models').select('id').where('owner_id', '=', ownerId).where('id', 'in', modelIds).execute()).map((m) => m.id),
  );
  const order = (k: UsageKind) => UsageKinds.indexOf(k);
  return {
    totals: UsageKinds.map((kind) => ({ kind, count: totals.get(kind)!.count, hours: hours(totals.get(kind)!.seconds) })),
    months: [...months.values()]
      .sort((a, b) => (a.month === b.month ? order(a.kind) - order(b.kind) : a.month < b.month ? 1 : -1))
      .map((m): UsageMonth => ({ month: m.month, kind: m.kind, count: m.count, hours: hours(m.seconds) })),
    entries: latest.map((r) => ({
      id: r.id,
      kind: r.kind,
      modelId: alive.has(r.model_id) ? r.model_id : null,
      modelName: r.model_name,
      result: r.result,
      seconds: Math.round(Number(r.seconds) * 10) / 10,
      startedAt: new Date(Number(r.started_at)).toISOString(),
      finishedAt: new Date(Number(r.finished_at)).toISOString(),
    })),
  };
}
