import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { SavedParamsData, TrainingData } from '@loupe/contracts';
import { call, startApp, type Reply, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { labeledStudio, trainingUrl, trainingsUrl, waitFor } from './training-fixtures.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const url = (modelId: number) => `/api/models/${modelId}/parameters`;
const save = (modelId: number, params: Record<string, unknown>, lang?: string) =>
  call<SavedParamsData>(t.app, 'PUT', url(modelId), { params }, { token, ...(lang ? { lang } : {}) });
const read = (modelId: number) => call<SavedParamsData>(t.app, 'GET', url(modelId), undefined, { token });
async function reset(modelId: number): Promise<Reply<SavedParamsData>> {
  const res = await t.app.inject({ method: 'DELETE', url: url(modelId), headers: { 'x-token': token } });
  return { status: res.statusCode, ...(res.json() as { code: number; message: string; data: SavedParamsData }) };
}

/** A real database failure: a trigger that refuses every change of the saved parameters. */
async function refuseParameterWrites(on: boolean): Promise<void> {
  const { db } = t.app.deps;
  if (t.config.databaseUrl) {
    if (on) {
      await sql`create or replace function refuse_params() returns trigger as $$ begin raise exception 'disk says no'; end $$ language plpgsql`.execute(db);
      await sql`create trigger refuse_params before update of parameters on models for each row execute function refuse_params()`.execute(db);
    } else {
      await sql`drop trigger refuse_params on models`.execute(db);
    }
  } else if (on) {
    await sql`create trigger refuse_params before update of parameters on models begin select raise(abort, 'disk says no'); end`.execute(db);
  } else {
    await sql`drop trigger refuse_params`.execute(db);
  }
}

describe('saved training parameters (SPEC §2 /parameter)', () => {
  it('starts empty, saves exactly the given keys, reads them back and resets', async () => {
    const s = await labeledStudio(t.app, token, { count: 3 });
    expect((await read(s.model.id)).data).toEqual({ saved: {}, updatedAt: null });

    const saved = await save(s.model.id, { epochs: 7, imgsz: 96, cos_lr: true, optimizer: 'SGD' });
    expect(saved.code, saved.message).toBe(0);
    expect(saved.data.saved).toEqual({ epochs: 7, imgsz: 96, cos_lr: true, optimizer: 'SGD' });
    expect(Date.parse(saved.data.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect((await read(s.model.id)).data).toEqual(saved.data);

    // A second save replaces the set: keys left out go back to their defaults.
    expect((await save(s.model.id, { epochs: 9 })).data.saved).toEqual({ epochs: 9 });
    const r = await reset(s.model.id);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toEqual({ saved: {}, updatedAt: null });
    expect((await read(s.model.id)).data.saved).toEqual({});
  });

  it('checks like a training start: one localized message per problem, nothing stored', async () => {
    const s = await labeledStudio(t.app, token, { count: 3 });
    await save(s.model.id, { epochs: 5 });
    const r = await save(s.model.id, { imgsz: 100, mosaic: 2, time: 0.5, colour: 1, epochs: 3 }, 'zh');
    expect([r.status, r.code]).toEqual([400, 20001]);
    const problems = (r.data as unknown as { problems: { field: string; reason: string; message: string }[] }).problems;
    expect(problems.map((p) => [p.field, p.reason])).toEqual([
      ['imgsz', 'multipleOf32'],
      ['mosaic', 'range'],
      ['time', 'trainingHours'],
      ['colour', 'unknown'],
    ]);
    expect(problems.every((p) => /[\u4e00-\u9fff]/.test(p.message))).toBe(true);
    expect(r.message).toBe(problems[0]!.message);
    expect((await read(s.model.id)).data.saved).toEqual({ epochs: 5 });
    // The limit itself is fine: here the host's and the plan's ceilings (1280 px on a CPU, 12 h on the standard
    // plan; fair-use.test.ts), below the engine's own limits (4096 px, 72 h).
    expect((await save(s.model.id, { imgsz: 1280, mosaic: 1, time: 12 })).code).toBe(0);
  });

  it('is the caller’s own model only', async () => {
    const s = await labeledStudio(t.app, token, { count: 1, split: false });
    const other = await userToken(t.app);
    const r = await call(t.app, 'PUT', url(s.model.id), { params: { epochs: 2 } }, { token: other });
    expect([r.status, r.code]).toEqual([404, (await call(t.app, 'GET', url(999_999), undefined, { token })).code]);
  });

  it('answers parameterSaveFailed and parameterResetFailed when the database refuses', async () => {
    const s = await labeledStudio(t.app, token, { count: 1, split: false });
    await save(s.model.id, { epochs: 4 });
    await refuseParameterWrites(true);
    try {
      const w = await save(s.model.id, { epochs: 6 }, 'de');
      expect([w.status, w.code]).toEqual([400, 40006]);
      expect(w.message).toMatch(/Parameter/);
      const d = await reset(s.model.id);
      expect([d.status, d.code]).toEqual([500, 40007]);
    } finally {
      await refuseParameterWrites(false);
    }
    expect((await read(s.model.id)).data.saved).toEqual({ epochs: 4 });
  });

  it('a training started without params uses the saved ones; given params win', async () => {
    const s = await labeledStudio(t.app, token);
    const tiny = { model: 'p', imgsz: 64, epochs: 50, batch: 4, mosaic: 0, workers: 0, warmup_epochs: 0, cos_lr: true };
    expect((await save(s.model.id, tiny)).code).toBe(0);
    const started = await call<TrainingData>(t.app, 'POST', trainingsUrl(s.model.id), {}, { token });
    expect(started.code, started.message).toBe(0);
    expect(started.data.params).toEqual(tiny);
    await call(t.app, 'POST', `${trainingUrl(s.model.id, started.data.id)}/stop`, undefined, { token });
    await waitFor(t.app, token, s.model.id, started.data.id, (x) => x.status === 'cancelled');

    const own = await call<TrainingData>(t.app, 'POST', trainingsUrl(s.model.id), { params: { ...tiny, epochs: 40 } }, { token });
    expect(own.data.params).toEqual({ ...tiny, epochs: 40 });
    await call(t.app, 'POST', `${trainingUrl(s.model.id, own.data.id)}/stop`, undefined, { token });
    await waitFor(t.app, token, s.model.id, own.data.id, (x) => x.status === 'cancelled');

    // Saved values that no longer pass (saved before a rule changed, or written by hand) stop the start.
    await t.app.deps.db.updateTable('models').set({ parameters: JSON.stringify({ imgsz: 100 }) }).where('id', '=', s.model.id).execute();
    const bad = await call(t.app, 'POST', trainingsUrl(s.model.id), {}, { token });
    expect([bad.status, bad.code]).toEqual([400, 20001]);
  });
});
