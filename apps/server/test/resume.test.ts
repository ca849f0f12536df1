import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelData, TrainingData, TrainingDetailData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { labeledStudio, start, TINY, trainingUrl, waitFor } from './training-fixtures.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  // A short lease, so a job whose runner lost it is taken over within seconds.
  t = await startApp({ queue: { kind: 'db', leaseMs: 1500, maxAttempts: 3 } });
  token = await userToken(t.app);
});
afterAll(() => t.close());

const model = async (id: number) => (await call<ModelData>(t.app, 'GET', `/api/models/${id}`, undefined, { token })).data;
const resume = (modelId: number, id: number) => call<TrainingData>(t.app, 'POST', `${trainingUrl(modelId, id)}/resume`, undefined, { token });
/** The training's checkpoint in the blob store ({ last, best? } hashes), or null. */
const checkpoint = async (id: number) => {
  const row = await t.app.deps.db.selectFrom('trainings').select('checkpoint').where('id', '=', id).executeTakeFirstOrThrow();
  return row.checkpoint ? (JSON.parse(row.checkpoint) as { last: string; best?: string }) : null;
};
const jobOf = async (id: number) => (await t.app.deps.db.selectFrom('trainings').select('job_id').where('id', '=', id).executeTakeFirstOrThrow()).job_id!;

/** The engine process this test's server started for a training: a child of this process working in its job's folder. */
async function engineOf(trainingId: number): Promise<number> {
  const dir = path.join(t.config.dataDir, 'jobs', String(await jobOf(trainingId)));
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const ppid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      if (ppid === process.pid && cmd.includes('loupe_engine') && cmd.includes(dir)) return Number(pid);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no engine process for training ${trainingId}`);
}

/** Rows as a runner that died mid-training leaves them: job running under a lease past its end, training training, model locked. */
async function leftRunning(modelId: number, trainingId: number, attempts: number): Promise<void> {
  const { db } = t.app.deps;
  const now = Date.now();
  const owner = (await db.selectFrom('models').select('owner_id').where('id', '=', modelId).executeTakeFirstOrThrow()).owner_id;
  const job = await db
    .insertInto('jobs')
    .values({ kind: 'training', model_id: modelId, owner_id: owner, state: 'running', attempts, payload: JSON.stringify({ trainingId }), created_at: now, started_at: now, heartbeat_at: now, lease_owner: 'dead-runner:1', lease_until: now - 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.updateTable('trainings').set({ job_id: job.id, status: 'training', phase: 'training', resumable: 0, ended_at: null }).where('id', '=', trainingId).execute();
  await db.updateTable('models').set({ train_id: trainingId, training_status: 'training', project_status: 'training' }).where('id', '=', modelId).execute();
}

describe('resuming a training from its last checkpoint', () => {
  let s: Awaited<ReturnType<typeof labeledStudio>>;
  let killed: TrainingDetailData;
  let epochsBefore: number;

  it('a training whose engine is killed mid-run ends failed and resumable, its checkpoint kept in the blob store', async () => {
    s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 6 });
    expect(r.code, r.message).toBe(0);
    await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.epoch >= 2);
    process.kill(await engineOf(r.data.id), 'SIGKILL');
    const d = await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.status === 'failed');
    expect(d).toMatchObject({ resumable: true, error: 'The engine process was killed (out of memory or stopped from outside).', epochs: 6 });
    epochsBefore = d.epoch;
    expect(epochsBefore).toBeGreaterThanOrEqual(2);
    expect(epochsBefore).toBeLessThan(6);
    expect(d.history.map((h) => h.epoch)).toEqual(Array.from({ length: epochsBefore }, (_, i) => i + 1));
    const kept = await checkpoint(r.data.id);
    expect(kept).not.toBeNull();
    expect(await t.app.deps.blobs.exists(kept!.last)).toBe(true);
    // The work folder was the runner's scratch: gone with the job.
    expect(fs.existsSync(path.join(t.config.dataDir, 'jobs', String(await jobOf(r.data.id))))).toBe(false);
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'failed' });
    killed = d;
  }, 90_000);

  it('resume queues the same training again and its epochs continue where the checkpoint was', async () => {
    const r = await resume(s.model.id, killed.id);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ id: killed.id, version: killed.version, status: 'queued', resumable: false, error: null, endedAt: null });
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'training', trainId: killed.id });
    // One training at a time; resuming what is not failed is refused.
    expect((await start(t.app, token, s.model.id)).code).toBe(40001);
    expect((await resume(s.model.id, killed.id)).code).toBe(40009);

    const d = await waitFor(t.app, token, s.model.id, killed.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 60_000);
    expect(d.status, d.error ?? '').toBe('succeeded');
    expect(d).toMatchObject({ epoch: 6, epochs: 6, hasWeights: true, resumable: false });
    // Every epoch once, in order: the stored ones stay, the resumed run adds the rest.
    expect(d.history.map((h) => h.epoch)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(d.history.slice(0, epochsBefore).map((h) => h.metrics)).toEqual(killed.history.map((h) => h.metrics));
    expect(d.summary).toMatchObject({ total_epochs: 6 });
    // Succeeded: the checkpoint served its purpose and its blobs went.
    const was = killed.id;
    expect(await checkpoint(was)).toBeNull();
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'succeeded' });
  }, 90_000);

  it('refuses what cannot resume: succeeded, cancelled, unknown, and a lost checkpoint', async () => {
    expect((await resume(s.model.id, killed.id)).code).toBe(40009);
    const c = await start(t.app, token, s.model.id, { ...TINY, epochs: 200 });
    await waitFor(t.app, token, s.model.id, c.data.id, (x) => x.status === 'training');
    await call(t.app, 'POST', `${trainingUrl(s.model.id, c.data.id)}/stop`, undefined, { token });
    const cancelled = await waitFor(t.app, token, s.model.id, c.data.id, (x) => x.status === 'cancelled');
    expect(cancelled.resumable).toBe(false);
    expect(await checkpoint(c.data.id)).toBeNull();
    const r = await resume(s.model.id, c.data.id);
    expect([r.status, r.code]).toEqual([409, 40009]);
    expect(r.message).toMatch(/checkpoint/);
    expect((await resume(s.model.id, 999_999)).status).toBe(404);

    // Left running by a runner that died on its last attempt: given up with a reason, not resumable (no checkpoint).
    await leftRunning(s.model.id, c.data.id, 3);
    const lost = await waitFor(t.app, token, s.model.id, c.data.id, (x) => x.status === 'failed', 15_000);
    expect(lost).toMatchObject({ resumable: false });
    expect(lost.error).toMatch(/stopped answering/);
    expect((await resume(s.model.id, c.data.id)).code).toBe(40009);
  }, 90_000);

  it('a job whose runner lost its lease is taken over and continues from the stored checkpoint', async () => {
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 6 });
    expect(r.code, r.message).toBe(0);
    await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.epoch >= 2);
    const engine = await engineOf(r.data.id);
    // As if this runner were cut off: another holder appears on the lease, which then runs out.
    const jobId = await jobOf(r.data.id);
    await t.app.deps.db.updateTable('jobs').set({ lease_owner: 'elsewhere:1', lease_until: Date.now() - 1 }).where('id', '=', jobId).execute();
    // Its heartbeat answers false: the engine is stopped and nothing is recorded; the reaper queues it again.
    const d = await waitFor(t.app, token, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 60_000);
    expect(d.status, d.error ?? '').toBe('succeeded');
    expect(d.history.map((h) => h.epoch)).toEqual([1, 2, 3, 4, 5, 6]);
    const job = await t.app.deps.db.selectFrom('jobs').select(['state', 'attempts']).where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'succeeded', attempts: 2 });
    expect(fs.existsSync(`/proc/${engine}`) && !/\) Z /.test(fs.readFileSync(`/proc/${engine}/stat`, 'utf8'))).toBe(false);
  }, 90_000);

  it('a checkpoint an older server kept in DATA_DIR/trainings moves into the blob store at start-up', async () => {
    const s2 = await labeledStudio(t.app, token, { count: 6 });
    const r = await start(t.app, token, s2.model.id, { ...TINY, epochs: 1 });
    const done = await waitFor(t.app, token, s2.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    // As a server before issue 34 left a failed, resumable training: its checkpoint in a folder, none in the store.
    await t.app.deps.db.updateTable('trainings').set({ status: 'failed', resumable: 1, checkpoint: null }).where('id', '=', done.id).execute();
    const legacy = path.join(t.config.dataDir, 'trainings', String(done.id), 'run');
    fs.mkdirSync(legacy, { recursive: true });
    fs.writeFileSync(path.join(legacy, 'last.pt'), `checkpoint of ${done.id}`);
    const second = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema });
    try {
      const kept = await checkpoint(done.id);
      expect(kept).not.toBeNull();
      expect((await t.app.deps.blobs.readBuffer(kept!.last)).toString()).toBe(`checkpoint of ${done.id}`);
      expect(fs.existsSync(path.join(t.config.dataDir, 'trainings'))).toBe(false);
    } finally {
      await second.app.close();
    }
  }, 60_000);
});
