import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelData, TrainingData, TrainingDetailData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { detail, labeledStudio, start, TINY, trainingUrl, waitFor } from './training-fixtures.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const model = async (id: number) => (await call<ModelData>(t.app, 'GET', `/api/models/${id}`, undefined, { token })).data;
const resume = (modelId: number, id: number) => call<TrainingData>(t.app, 'POST', `${trainingUrl(modelId, id)}/resume`, undefined, { token });
const folder = (id: number) => path.join(t.config.dataDir, 'trainings', String(id));

/** The engine process this test's server started for a training: a child of this process working in its folder. */
function engineOf(trainingId: number): number {
  const dir = folder(trainingId);
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

/** Rows as a server that died mid-training leaves them: job running, training training, model locked. */
async function leftRunning(modelId: number, trainingId: number): Promise<void> {
  const { db } = t.app.deps;
  const now = Date.now();
  const owner = (await db.selectFrom('models').select('owner_id').where('id', '=', modelId).executeTakeFirstOrThrow()).owner_id;
  const job = await db.insertInto('jobs').values({ kind: 'training', model_id: modelId, owner_id: owner, state: 'running', payload: JSON.stringify({ trainingId }), created_at: now, started_at: now, heartbeat_at: now }).returning('id').executeTakeFirstOrThrow();
  await db.updateTable('trainings').set({ job_id: job.id, status: 'training', phase: 'training', resumable: 0, ended_at: null }).where('id', '=', trainingId).execute();
  await db.updateTable('models').set({ train_id: trainingId, training_status: 'training', project_status: 'training' }).where('id', '=', modelId).execute();
}

describe('resuming a training from its last checkpoint', () => {
  let s: Awaited<ReturnType<typeof labeledStudio>>;
  let killed: TrainingDetailData;
  let epochsBefore: number;

  it('a training whose engine is killed mid-run ends failed and resumable, its folder kept', async () => {
    s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 6 });
    expect(r.code, r.message).toBe(0);
    await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.epoch >= 2);
    process.kill(engineOf(r.data.id), 'SIGKILL');
    const d = await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.status === 'failed');
    expect(d).toMatchObject({ resumable: true, error: 'The engine process was killed (out of memory or stopped from outside).', epochs: 6 });
    epochsBefore = d.epoch;
    expect(epochsBefore).toBeGreaterThanOrEqual(2);
    expect(epochsBefore).toBeLessThan(6);
    expect(d.history.map((h) => h.epoch)).toEqual(Array.from({ length: epochsBefore }, (_, i) => i + 1));
    expect(fs.existsSync(path.join(folder(r.data.id), 'run', 'last.pt'))).toBe(true);
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'failed' });
    killed = d;
  }, 90_000);

  it('a server that finds it left running at start-up keeps it resumable too', async () => {
    await leftRunning(s.model.id, killed.id);
    const second = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema });
    try {
      const d = await detail(second.app, token, s.model.id, killed.id);
      expect(d).toMatchObject({ status: 'failed', resumable: true });
      expect(d.error).toMatch(/server stopped/);
    } finally {
      await second.app.close();
    }
    expect(fs.existsSync(path.join(folder(killed.id), 'run', 'last.pt'))).toBe(true);
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
    expect(fs.existsSync(folder(killed.id))).toBe(false);
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'succeeded' });
  }, 90_000);

  it('refuses what cannot resume: succeeded, cancelled, unknown, and a lost checkpoint', async () => {
    expect((await resume(s.model.id, killed.id)).code).toBe(40009);
    const c = await start(t.app, token, s.model.id, { ...TINY, epochs: 200 });
    await waitFor(t.app, token, s.model.id, c.data.id, (x) => x.status === 'training');
    await call(t.app, 'POST', `${trainingUrl(s.model.id, c.data.id)}/stop`, undefined, { token });
    const cancelled = await waitFor(t.app, token, s.model.id, c.data.id, (x) => x.status === 'cancelled');
    expect(cancelled.resumable).toBe(false);
    expect(fs.existsSync(folder(c.data.id))).toBe(false);
    const r = await resume(s.model.id, c.data.id);
    expect([r.status, r.code]).toEqual([409, 40009]);
    expect(r.message).toMatch(/checkpoint/);
    expect((await resume(s.model.id, 999_999)).status).toBe(404);

    // Left running by a dead server before its first epoch: no checkpoint, so not resumable, folder gone.
    fs.mkdirSync(path.join(folder(c.data.id), 'images'), { recursive: true });
    await leftRunning(s.model.id, c.data.id);
    const second = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema });
    try {
      expect(await detail(second.app, token, s.model.id, c.data.id)).toMatchObject({ status: 'failed', resumable: false });
    } finally {
      await second.app.close();
    }
    expect(fs.existsSync(folder(c.data.id))).toBe(false);
    expect((await resume(s.model.id, c.data.id)).code).toBe(40009);
  }, 90_000);
});
