import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelData, TrainingData, TrainingListData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { detail, labeledStudio, parseSse, start, TINY, trainingsUrl, trainingUrl, waitFor } from './training-fixtures.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const model = async (id: number) => (await call<ModelData>(t.app, 'GET', `/api/models/${id}`, undefined, { token })).data;

describe('training start rules (SPEC §5, §8)', () => {
  it('answers 8001 when nothing is labeled, and names a label without a validation image', async () => {
    const bare = await labeledStudio(t.app, token, { count: 2, split: false });
    await call(t.app, 'PUT', `/api/models/${bare.model.id}/images/${bare.images[0]}/annotations`, { baseVersion: 1, annotations: [] }, { token });
    await call(t.app, 'PUT', `/api/models/${bare.model.id}/images/${bare.images[1]}/annotations`, { baseVersion: 1, annotations: [] }, { token });
    const none = await start(t.app, token, bare.model.id);
    expect([none.status, none.code]).toEqual([409, 8001]);

    const s = await labeledStudio(t.app, token, { count: 3, split: false });
    await call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids: s.images, split: 'train' }, { token });
    const r = await start(t.app, token, s.model.id);
    expect([r.status, r.code]).toEqual([409, 40002]);
    expect(r.message).toContain('scratch');
  });

  it('rejects bad parameters before queueing, one message per problem', async () => {
    const s = await labeledStudio(t.app, token, { count: 3 });
    const r = await start(t.app, token, s.model.id, { imgsz: 100, mosaic: 2, time: 0.5, batch: 0, colour: 1, model: 'x' }, 'de');
    expect([r.status, r.code]).toEqual([400, 20001]);
    const problems = (r.data as unknown as { problems: { field: string; reason: string; message: string }[] }).problems;
    expect(problems.map((p) => [p.field, p.reason])).toEqual([
      ['imgsz', 'multipleOf32'],
      ['mosaic', 'range'],
      ['time', 'trainingHours'],
      ['batch', 'batchSize'],
      ['colour', 'unknown'],
      ['model', 'enum'],
    ]);
    expect(problems[0]!.message).toContain('Vielfaches von 32');
    expect((await call<TrainingListData>(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token })).data.total).toBe(0);
  });
});

describe('a training on the real engine', () => {
  let s: Awaited<ReturnType<typeof labeledStudio>>;
  let first: TrainingData;

  it('queues, refuses a second start, streams progress over SSE and succeeds', async () => {
    s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id);
    expect(r.code, r.message).toBe(0);
    first = r.data;
    expect(first).toMatchObject({ serialNo: 1, version: 'v1', rotated: false, labeledImages: 12, totalImages: 12, labelKinds: 1, accuracy: null });
    expect(['queued', 'preparing']).toContain(first.status);
    expect((await model(s.model.id)).projectStatus).toBe('training');

    const again = await start(t.app, token, s.model.id);
    expect([again.status, again.code]).toEqual([409, 40001]);
    // Deleting the model would pull the data from under the engine: stop the training first.
    const deleted = await call(t.app, 'DELETE', `/api/models/${s.model.id}`, undefined, { token });
    expect([deleted.status, deleted.code]).toEqual([409, 40001]);

    // The stream ends after the terminal state, so inject returns the whole live session.
    const res = await t.app.inject({ method: 'GET', url: `${trainingUrl(s.model.id, first.id)}/events`, headers: { 'x-token': token } });
    expect(res.headers['content-type']).toContain('text/event-stream');
    const events = parseSse(res.body);
    const epochs = events.filter((e) => e.event === 'progress' && e.id);
    expect(epochs.map((e) => e.id)).toEqual(['1']);
    expect(epochs[0]!.data).toMatchObject({ epoch: 1, epochs: 1, phase: 'training' });
    expect(events.at(-1)).toEqual({ event: 'state', data: { status: 'succeeded', error: null } });
  });

  it('keeps the record, the epochs and the weights, and releases the model', async () => {
    const d = await detail(t.app, token, s.model.id, first.id);
    expect(d).toMatchObject({ status: 'succeeded', epoch: 1, epochs: 1, hasWeights: true, error: null });
    // Fewer than 30 labeled images: no accuracy (SPEC §5), but the summary is there.
    expect(d.accuracy).toBeNull();
    expect(d.summary).toHaveProperty('mAP50');
    expect(d.history).toHaveLength(1);
    expect(d.history[0]!.metrics).toHaveProperty('loss');
    expect(d.endedAt).not.toBeNull();
    // The /model charts: the final evaluation from the run's results.json (one class + background).
    expect(Object.keys(d.evaluation!.per_class)).toEqual(['scratch']);
    expect(d.evaluation!.confusion_matrix).toHaveLength(2);
    expect(d.evaluation!.pr_curve).toHaveProperty('recall');
    const m = await model(s.model.id);
    expect(m).toMatchObject({ projectStatus: 'no', trainingStatus: 'succeeded', trainId: first.id, trainingCount: 1 });
    const list = await call<TrainingListData>(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token });
    expect(list.data.items.map((i) => i.version)).toEqual(['v1']);
  });

  it('replays only what a reconnecting client missed (Last-Event-ID)', async () => {
    const url = `${trainingUrl(s.model.id, first.id)}/events`;
    const all = parseSse((await t.app.inject({ method: 'GET', url, headers: { 'x-token': token } })).body);
    expect(all.map((e) => e.event)).toEqual(['progress', 'state']);
    const rest = parseSse((await t.app.inject({ method: 'GET', url, headers: { 'x-token': token, 'last-event-id': '1' } })).body);
    expect(rest.map((e) => e.event)).toEqual(['state']);
  });

  it('stop abandons a running training: it ends cancelled', async () => {
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 200 });
    expect(r.code, r.message).toBe(0);
    expect(r.data.version).toBe('v2');
    await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.status === 'training');
    // Deleting a gallery image keeps the bytes the running snapshot trains on.
    const victim = s.images[0]!;
    const original = await t.app.inject({ method: 'GET', url: `/api/models/${s.model.id}/images/${victim}/original`, headers: { 'x-token': token } });
    const sha = createHash('sha256').update(original.rawPayload).digest('hex');
    const removed = await call(t.app, 'POST', `/api/models/${s.model.id}/images/delete`, { ids: [victim] }, { token });
    expect(removed.code, removed.message).toBe(0);
    expect(fs.existsSync(path.join(t.config.dataDir, 'blobs', sha.slice(0, 2), sha))).toBe(true);
    const stop = await call<TrainingData>(t.app, 'POST', `${trainingUrl(s.model.id, r.data.id)}/stop`, undefined, { token });
    expect(stop.code, stop.message).toBe(0);
    const done = await waitFor(t.app, token, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    expect(done.status).toBe('cancelled');
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'cancelled' });
    const again = await call(t.app, 'POST', `${trainingUrl(s.model.id, r.data.id)}/stop`, undefined, { token });
    expect(again.code).toBe(40003);
  });

  it('leaves a job another process holds alone at start-up, and fails one whose runner stopped answering on its last attempt', async () => {
    const { db } = t.app.deps;
    const now = Date.now();
    const snap = await db.selectFrom('trainings').select('snapshot_id').where('id', '=', first.id).executeTakeFirstOrThrow();
    const owner = (await db.selectFrom('models').select('owner_id').where('id', '=', s.model.id).executeTakeFirstOrThrow()).owner_id;
    // Held by a runner elsewhere: a live lease, attempts spent (3 of 3), so a takeover could only fail it.
    const job = await db
      .insertInto('jobs')
      .values({ kind: 'training', model_id: s.model.id, owner_id: owner, state: 'running', attempts: 3, payload: '{}', created_at: now, started_at: now, heartbeat_at: now, lease_owner: 'elsewhere:1', lease_until: now + 60_000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const tr = await db.insertInto('trainings').values({ model_id: s.model.id, version: 3, snapshot_id: snap.snapshot_id, job_id: job.id, task: 'detect', parameters: '{}', status: 'training', phase: 'training', data_version: 0, eta_s: null, summary: null, error: null, created_at: now, started_at: now, ended_at: null }).returning('id').executeTakeFirstOrThrow();
    await db.updateTable('models').set({ train_id: tr.id, training_status: 'training', project_status: 'training' }).where('id', '=', s.model.id).execute();

    // Work folders on this host: the held job's (another runner here may be using it) and one a killed runner left.
    const jobsDir = path.join(t.config.dataDir, 'jobs');
    const old = new Date(Date.now() - 3_600_000);
    for (const name of [String(job.id), '987654']) {
      fs.mkdirSync(path.join(jobsDir, name), { recursive: true });
      fs.utimesSync(path.join(jobsDir, name), old, old);
    }
    // A second server on the same database starts (issue 34: never fail a job because another process started).
    const second = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema, queue: { kind: 'db', leaseMs: 1000, maxAttempts: 3 } });
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect((await detail(second.app, token, s.model.id, tr.id)).status).toBe('training');
      expect(fs.existsSync(path.join(jobsDir, String(job.id)))).toBe(true);
      expect(fs.existsSync(path.join(jobsDir, '987654'))).toBe(false);
      // Its runner stops answering: once the lease is past, the job is given up with a reason.
      await db.updateTable('jobs').set({ lease_until: Date.now() - 1 }).where('id', '=', job.id).execute();
      const d = await waitFor(second.app, token, s.model.id, tr.id, (x) => x.status === 'failed', 10_000);
      expect(d.error).toMatch(/stopped answering/);
      expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', trainingStatus: 'failed' });
      const row = await db.selectFrom('jobs').select(['state', 'lease_owner']).where('id', '=', job.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ state: 'failed', lease_owner: null });
    } finally {
      await second.app.close();
    }
  });
});
