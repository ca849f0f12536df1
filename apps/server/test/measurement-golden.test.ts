import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { GoldenJobData } from '@loupe/contracts';
import { loadConfig } from '../src/config.js';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { save } from './labeling-fixtures.js';
import { drawnOf, shapesModel } from './task-fixtures.js';
import { labeledStudio, start, TINY, trainingUrl, waitFor } from './training-fixtures.js';

/**
 * Golden samples are a job of the one job system (issue 30 item 9): the request queues and answers at once,
 * the job waits for a slot like any other, and it is stopped past the server's time limit.
 */
const goldenUrl = (modelId: number) => `/api/models/${modelId}/measurement/golden`;
const jobUrl = (modelId: number, jobId: number) => `${goldenUrl(modelId)}/${jobId}`;

/** A MEASURE model with `count` images, each labeled with its drawn polygon. */
async function labeledMeasure(app: FastifyInstance, token: string, count: number) {
  const m = await shapesModel(app, token, 'MEASURE', count);
  for (const [i, id] of m.images.entries()) {
    const d = drawnOf(i);
    const r = await save(app, token, { ...m, labels: m.labels }, id, 0, [{ labelId: m.labels[d.shape], geometry: { kind: 'polygon', points: d.polygon } }]);
    expect(r.code, r.message).toBe(0);
  }
  return m;
}

async function ended(app: FastifyInstance, token: string, modelId: number, jobId: number, lang = 'en'): Promise<GoldenJobData> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const r = await call<GoldenJobData>(app, 'GET', jobUrl(modelId, jobId), undefined, { token, lang });
    expect(r.code, r.message).toBe(0);
    if (!['queued', 'running'].includes(r.data.status)) return r.data;
    if (Date.now() > deadline) throw new Error(`golden job ${jobId} stuck in ${r.data.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('golden samples as a job', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ jobConcurrency: 1 });
  });
  afterAll(() => t.close());

  it('answers at once with a queued job while the only slot is busy, refuses a second one, and measures when the slot frees', async () => {
    const token = await userToken(t.app);
    const m = await labeledMeasure(t.app, token, 4);
    // Another account's training holds the only job slot.
    const other = await userToken(t.app);
    const s = await labeledStudio(t.app, other);
    const blocker = await start(t.app, other, s.model.id, { ...TINY, epochs: 1000, patience: 0 });
    expect(blocker.code, blocker.message).toBe(0);
    await waitFor(t.app, other, s.model.id, blocker.data.id, (x) => x.status === 'training');

    const r = await call<GoldenJobData>(t.app, 'POST', goldenUrl(m.model.id), { imageIds: m.images, marginPct: 10 }, { token });
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ status: 'queued', result: null, error: null });
    // Nothing measured inside the request: the job waits for the slot.
    await new Promise((res) => setTimeout(res, 500));
    const waiting = await call<GoldenJobData>(t.app, 'GET', jobUrl(m.model.id, r.data.jobId), undefined, { token });
    expect(waiting.data.status).toBe('queued');
    const again = await call(t.app, 'POST', goldenUrl(m.model.id), { imageIds: m.images, marginPct: 5 }, { token, lang: 'en' });
    expect([again.status, again.code]).toEqual([409, 40056]);
    expect(again.message).toMatch(/already being measured/);
    // Another account's job is not found, as any other account's object.
    expect((await call(t.app, 'GET', jobUrl(m.model.id, r.data.jobId), undefined, { token: other })).status).toBe(404);
    expect((await call(t.app, 'GET', jobUrl(s.model.id, r.data.jobId), undefined, { token: other })).status).toBe(404);

    await call(t.app, 'POST', `${trainingUrl(s.model.id, blocker.data.id)}/stop`, undefined, { token: other });
    const done = await ended(t.app, token, m.model.id, r.data.jobId);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(done.result).toMatchObject({ images: 4, objects: 4, unit: 'px' });
    expect(done.result!.proposal.labels.length).toBeGreaterThan(0);
    // Ended: the model takes a new golden job.
    const next = await call<GoldenJobData>(t.app, 'POST', goldenUrl(m.model.id), { imageIds: m.images.slice(0, 2), marginPct: 0 }, { token });
    expect(next.code, next.message).toBe(0);
    expect((await ended(t.app, token, m.model.id, next.data.jobId)).result).toMatchObject({ images: 2 });
  }, 90_000);
});

describe('a golden job past its time limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ fairUse: { ...loadConfig({}).fairUse, goldenTimeoutS: 0.2 } });
  });
  afterAll(() => t.close());

  it('is stopped and fails with the time-limit reason in the user’s language', async () => {
    const token = await userToken(t.app);
    const m = await labeledMeasure(t.app, token, 2);
    const r = await call<GoldenJobData>(t.app, 'POST', goldenUrl(m.model.id), { imageIds: m.images, marginPct: 10 }, { token });
    expect(r.code, r.message).toBe(0);
    const done = await ended(t.app, token, m.model.id, r.data.jobId, 'de');
    expect(done.status).toBe('failed');
    expect(done.result).toBeNull();
    expect(done.error).toBe('Der Auftrag hat sein Zeitlimit überschritten und wurde gestoppt: 0.2 s');
    // The slot is free again: the runner holds no job.
    const running = await t.app.deps.db.selectFrom('jobs').select('id').where('state', 'in', ['queued', 'running']).execute();
    expect(running).toHaveLength(0);
  }, 60_000);
});
