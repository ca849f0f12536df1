import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Limits, type ImageListData, type UsageData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { newModel, userToken } from './gallery-fixtures.js';
import { save, studio } from './labeling-fixtures.js';
import { labeledStudio, start, TINY, waitFor } from './training-fixtures.js';

let t: TestApp;
let token: string;
let other: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
  other = await userToken(t.app);
});
afterAll(() => t.close());

const usage = async (tok: string, query = '') => {
  const r = await call<UsageData>(t.app, 'GET', `/api/usage${query}`, undefined, { token: tok });
  expect(r.code, r.message).toBe(0);
  return r.data;
};

describe('usage ledger (issue 31: /usage records trainings, tests, exports)', () => {
  it('starts empty with all three kinds at zero, and needs a signed-in user', async () => {
    const u = await usage(token);
    expect(u.entries).toEqual([]);
    expect(u.totals).toEqual([
      { kind: 'training', count: 0, hours: 0 },
      { kind: 'test', count: 0, hours: 0 },
      { kind: 'export', count: 0, hours: 0 },
    ]);
    const anonymous = await call(t.app, 'GET', '/api/usage');
    expect(anonymous.status).toBe(401);
  });

  it('a training that ran is recorded when it ends, only for its owner, and survives the model being deleted', async () => {
    const s = await labeledStudio(t.app, token, { count: 6 });
    const r = await start(t.app, token, s.model.id, TINY);
    expect(r.code, r.message).toBe(0);
    const done = await waitFor(t.app, token, s.model.id, r.data.id, (x) => x.status === 'succeeded' || x.status === 'failed', 90_000);
    expect(done.status).toBe('succeeded');
    // The ledger is written by the runner just after the training's end is recorded.
    let u = await usage(token);
    for (let i = 0; i < 50 && u.entries.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 100));
      u = await usage(token);
    }
    expect(u.entries).toHaveLength(1);
    const e = u.entries[0]!;
    expect(e).toMatchObject({ kind: 'training', modelId: s.model.id, modelName: s.model.name, result: 'succeeded' });
    expect(e.seconds).toBeGreaterThan(0);
    expect(Date.parse(e.finishedAt)).toBeGreaterThanOrEqual(Date.parse(e.startedAt));
    const training = u.totals.find((x) => x.kind === 'training')!;
    expect(training.count).toBe(1);
    // Close enough that a job of a few seconds never reads as 0 s (the page shows the total in seconds).
    expect(training.hours * 3600).toBeCloseTo(e.seconds, 0);
    expect(u.months).toEqual([{ month: e.finishedAt.slice(0, 7), kind: 'training', count: 1, hours: training.hours }]);

    // Another account sees none of it.
    const theirs = await usage(other);
    expect(theirs.entries).toEqual([]);
    expect(theirs.totals.every((x) => x.count === 0)).toBe(true);

    // The period filter: an entry counts by its end.
    const end = Date.parse(e.finishedAt);
    expect((await usage(token, `?from=${end + 1}`)).entries).toEqual([]);
    expect((await usage(token, `?to=${end}`)).entries).toEqual([]);
    expect((await usage(token, `?from=${end}&to=${end + 1}`)).entries).toHaveLength(1);
    const bad = await call(t.app, 'GET', '/api/usage?from=yesterday', undefined, { token });
    expect(bad.status).toBe(400);

    // Deleting the model keeps what was used.
    const del = await call(t.app, 'DELETE', `/api/models/${s.model.id}`, undefined, { token });
    expect(del.code, del.message).toBe(0);
    u = await usage(token);
    expect(u.entries).toHaveLength(1);
    expect(u.entries[0]).toMatchObject({ kind: 'training', modelId: null, modelName: s.model.name, result: 'succeeded' });
    expect(u.totals.find((x) => x.kind === 'training')!.count).toBe(1);
  }, 120_000);
});

describe('usage of a job a dead server left running', () => {
  it('is recorded as failed, with its time until the restart, when the next server starts and gives it up', async () => {
    const HOUR = 3_600_000;
    const prep = await startApp();
    const tok = await userToken(prep.app);
    const m = await newModel(prep.app, tok, 'DETECTION', `Crashed ${Date.now()}`);
    const db = prep.app.deps.db;
    const owner = await db.selectFrom('models').select('owner_id').where('id', '=', m.id).executeTakeFirstOrThrow();
    const now = prep.app.deps.now();
    await db
      .insertInto('jobs')
      // Its runner died on the job's last attempt (issue 34: the lease ran out; no attempt is left to take it over).
      .values({ kind: 'export', model_id: m.id, owner_id: owner.owner_id, state: 'running', attempts: 3, payload: '{}', created_at: now - 2 * HOUR, started_at: now - 2 * HOUR, heartbeat_at: now - 2 * HOUR, finished_at: null, error: null, result: null, lease_owner: 'dead-runner:1', lease_until: now - 2 * HOUR + 30_000 })
      .execute();
    await prep.app.close();
    const next = await startApp({ dataDir: prep.config.dataDir, databaseSchema: prep.config.databaseSchema });
    try {
      const r = await call<UsageData>(next.app, 'GET', '/api/usage', undefined, { token: tok });
      expect(r.code, r.message).toBe(0);
      expect(r.data.entries).toHaveLength(1);
      expect(r.data.entries[0]).toMatchObject({ kind: 'export', modelId: m.id, modelName: m.name, result: 'failed' });
      expect(r.data.entries[0]!.seconds).toBeGreaterThanOrEqual(2 * 3600);
      expect(r.data.totals.find((x) => x.kind === 'export')).toMatchObject({ count: 1, hours: expect.closeTo(2, 1) });
    } finally {
      await next.close();
    }
  });
});

describe('gallery list carries the shapes a thumbnail draws (issue 31 item 5)', () => {
  it('boxes, rotated boxes and polygons with their labels; none for unannotated images; capped per image', async () => {
    const s = await studio(t.app, token, { count: 3, size: [200, 100], labels: ['scratch', 'dent'] });
    const [a, b, c] = s.images as [number, number, number];
    const drawn = [
      { labelId: s.labels.scratch!, geometry: { kind: 'box' as const, x1: 10, y1: 10, x2: 60, y2: 40 } },
      { labelId: s.labels.dent!, geometry: { kind: 'rbox' as const, cx: 100, cy: 50, w: 40, h: 20, angle: 30 } },
      { labelId: s.labels.dent!, geometry: { kind: 'polygon' as const, points: [[120, 10], [180, 20], [150, 80]] as [number, number][] } },
    ];
    expect((await save(t.app, token, s, a, 0, drawn)).code).toBe(0);
    const many = Array.from({ length: Limits.galleryShapesMax + 5 }, (_, i) => ({
      labelId: s.labels.scratch!,
      geometry: { kind: 'box' as const, x1: i % 190, y1: 1, x2: (i % 190) + 5, y2: 9 },
    }));
    const saved = await save(t.app, token, s, b, 0, many);
    expect(saved.code, saved.message).toBe(0);

    const list = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images`, undefined, { token });
    expect(list.code, list.message).toBe(0);
    const byId = new Map(list.data.items.map((i) => [i.id, i]));
    const shapesOf = (id: number) => byId.get(id)!.shapes?.map((x) => ({ labelId: x.labelId, kind: x.geometry.kind }));
    expect(shapesOf(a)).toEqual(drawn.map((d) => ({ labelId: d.labelId, kind: d.geometry.kind })));
    expect(byId.get(a)!.shapes![0]!.geometry).toMatchObject({ x1: 10, y1: 10, x2: 60, y2: 40 });
    expect(byId.get(a)!.shapesTruncated).toBeUndefined();
    expect(byId.get(b)!.shapes).toHaveLength(Limits.galleryShapesMax);
    expect(byId.get(b)!.shapesTruncated).toBe(true);
    expect(byId.get(c)!.shapes).toBeUndefined();

    // Replaced annotations: only the current set is drawn.
    const again = await save(t.app, token, s, a, 1, drawn.slice(0, 1));
    expect(again.code, again.message).toBe(0);
    const relisted = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images`, undefined, { token });
    expect(relisted.data.items.find((i) => i.id === a)!.shapes).toHaveLength(1);

    // Another user's request for this model's list is the same not-found as a missing model.
    const theirs = await call(t.app, 'GET', `/api/models/${s.model.id}/images`, undefined, { token: other });
    const missing = await call(t.app, 'GET', `/api/models/999999/images`, undefined, { token: other });
    expect(theirs.status).toBe(missing.status);
    expect(theirs.code).toBe(missing.code);

    // Classification models carry classes, not shapes.
    const cls = await newModel(t.app, token, 'classification');
    const empty = await call<ImageListData>(t.app, 'GET', `/api/models/${cls.id}/images`, undefined, { token });
    expect(empty.code).toBe(0);
  });
});
