import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PackStatusData, TestRunData, TrainingData, VersionCompareData, VersionData, VersionListData } from '@loupe/contracts';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { downloader, waitForPack } from './delivery-fixtures.js';
import { labeledStudio, SAME_ON_EVERY_HOST, start, TINY, waitFor } from './training-fixtures.js';
import type { Studio } from './labeling-fixtures.js';

/**
 * Issue 31 item 4: a model's versions. Two real one-epoch trainings; the default version the user chooses is
 * what a test and an export without a named version use, deleting it falls back to the latest, a version that
 * trains, tests or exports cannot be deleted, a deleted version's files go, and another account's versions
 * answer like missing ones.
 */

let t: TestApp;
let token: string;
let s: Studio;
let v1: TrainingData;
let v2: TrainingData;

const ENDED = (x: TrainingData) => !['queued', 'preparing', 'training'].includes(x.status);
const versionsUrl = (modelId: number) => `/api/models/${modelId}/versions`;
const versionUrl = (modelId: number, id: number) => `/api/models/${modelId}/versions/${id}`;
const noteUrl = (modelId: number, id: number) => `${versionUrl(modelId, id)}/note`;
const list = async (modelId = s.model.id, tk = token) => call<VersionListData>(t.app, 'GET', versionsUrl(modelId), undefined, { token: tk });
const setDefault = (trainingId: number | null, modelId = s.model.id, tk = token) =>
  call<VersionListData>(t.app, 'PUT', `${versionsUrl(modelId)}/default`, { trainingId }, { token: tk });
const blobFile = (sha: string) => path.join(t.config.dataDir, 'blobs', sha.slice(0, 2), sha);
const artifactsOf = async (id: number) =>
  JSON.parse((await t.app.deps.db.selectFrom('trainings').select('artifacts').where('id', '=', id).executeTakeFirstOrThrow()).artifacts) as Record<string, string>;

async function train(params: Record<string, unknown>): Promise<TrainingData> {
  const r = await start(t.app, token, s.model.id, params);
  expect(r.code, r.message).toBe(0);
  const done = await waitFor(t.app, token, s.model.id, r.data.id, ENDED, 180_000);
  expect(done.status, done.error ?? '').toBe('succeeded');
  return done;
}

async function waitTest(id: number): Promise<TestRunData> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const r = await call<TestRunData>(t.app, 'GET', `/api/models/${s.model.id}/tests/${id}`, undefined, { token });
    expect(r.code, r.message).toBe(0);
    if (!['queued', 'preparing', 'testing'].includes(r.data.status)) return r.data;
    if (Date.now() > deadline) throw new Error(`test ${id} still ${r.data.status}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  t = await startApp();
  ({ token } = await downloader(t.app));
  s = await labeledStudio(t.app, token, { count: 9 });
  v1 = await train({ ...TINY, ...SAME_ON_EVERY_HOST, seed: 1 });
  v2 = await train({ ...TINY, ...SAME_ON_EVERY_HOST, seed: 2, lr0: 0.02 });
}, 400_000);
afterAll(async () => {
  await t.close();
});

describe('versions (issue 31 item 4)', () => {
  it('lists the versions newest first; without a choice the latest is the one in use', async () => {
    const r = await list();
    expect(r.code, r.message).toBe(0);
    expect(r.data.items.map((v) => v.version)).toEqual(['v2', 'v1']);
    expect(r.data.defaultTrainingId).toBeNull();
    expect(r.data.effectiveTrainingId).toBe(v2.id);
    expect(r.data.items.map((v) => [v.isDefault, v.inUse, v.note])).toEqual([
      [false, true, ''],
      [false, false, ''],
    ]);
  });

  it('compares two versions: curves, only the parameters that differ, per-class metrics of both', async () => {
    const r = await call<VersionCompareData>(t.app, 'GET', `${versionsUrl(s.model.id)}/compare?a=${v1.id}&b=${v2.id}`, undefined, { token });
    expect(r.code, r.message).toBe(0);
    expect(r.data.a.id).toBe(v1.id);
    expect(r.data.b.id).toBe(v2.id);
    expect(r.data.a.history.length).toBeGreaterThan(0);
    expect(r.data.params).toEqual([
      { key: 'lr0', a: null, b: 0.02 },
      { key: 'seed', a: 1, b: 2 },
    ]);
    // One class (scratch): the detector's AP50 and AP50_95 in both versions, the instance count left out.
    expect(r.data.perClass.map((c) => `${c.name}.${c.metric}`)).toEqual(['scratch.AP50', 'scratch.AP50_95']);
    for (const c of r.data.perClass) {
      expect(typeof c.a).toBe('number');
      expect(typeof c.b).toBe('number');
    }
  });

  it('a note of at most 100 characters; a longer one is refused and leaves the old one', async () => {
    const ok = await call<VersionData>(t.app, 'PUT', noteUrl(s.model.id, v1.id), { note: '  first try, seed 1  ' }, { token });
    expect(ok.code, ok.message).toBe(0);
    expect(ok.data.note).toBe('first try, seed 1');
    const long = await call(t.app, 'PUT', noteUrl(s.model.id, v1.id), { note: 'x'.repeat(101) }, { token, lang: 'de' });
    expect([long.status, long.code]).toEqual([400, 20011]);
    expect(long.message).toMatch(/100/);
    expect((await list()).data.items.find((v) => v.id === v1.id)!.note).toBe('first try, seed 1');
  });

  it('the chosen default version is what a test and an export without a version use', async () => {
    const r = await setDefault(v1.id);
    expect(r.code, r.message).toBe(0);
    expect(r.data.defaultTrainingId).toBe(v1.id);
    expect(r.data.effectiveTrainingId).toBe(v1.id);
    expect(r.data.items.find((v) => v.id === v1.id)).toMatchObject({ isDefault: true, inUse: true });

    const test = await call<TestRunData>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { imageIds: s.images.slice(0, 3) }, { token });
    expect(test.code, test.message).toBe(0);
    expect(test.data.trainingId).toBe(v1.id);
    // While v1 is being tested it stays.
    const busy = await call(t.app, 'DELETE', versionUrl(s.model.id, v1.id), undefined, { token });
    expect([busy.status, busy.code]).toEqual([409, 40090]);
    expect((await waitTest(test.data.id)).status).toBe('succeeded');

    const pack = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: s.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false }, { token });
    expect(pack.code, pack.message).toBe(0);
    expect(pack.data.trainingId).toBe(v1.id);
    // While v1 is being exported it stays, too.
    const exporting = await call(t.app, 'DELETE', versionUrl(s.model.id, v1.id), undefined, { token });
    expect([exporting.status, exporting.code]).toEqual([409, 40090]);
    expect((await waitForPack(t.app, token, s.model.id, 'model', 120_000)).packStatus).toBe('success');
  }, 240_000);

  it('another account reaches none of these versions: the same not-found as a missing one', async () => {
    const other = await createUser(t.app);
    const otherToken = await login(t.app, other.user.email, other.user.password);
    expect((await list(s.model.id, otherToken)).code).toBe(20004);
    expect((await setDefault(v2.id, s.model.id, otherToken)).code).toBe(20004);
    expect((await call(t.app, 'PUT', noteUrl(s.model.id, v2.id), { note: 'mine' }, { token: otherToken })).code).toBe(20004);
    expect((await call(t.app, 'DELETE', versionUrl(s.model.id, v2.id), undefined, { token: otherToken })).code).toBe(20004);
    expect((await call(t.app, 'GET', `${versionsUrl(s.model.id)}/compare?a=${v1.id}&b=${v2.id}`, undefined, { token: otherToken })).code).toBe(20004);
    // Their own model, naming our version: not found either.
    const theirs = await labeledStudio(t.app, otherToken, { count: 3, split: false });
    expect((await setDefault(v2.id, theirs.model.id, otherToken)).code).toBe(20004);
    expect((await call(t.app, 'DELETE', versionUrl(theirs.model.id, v2.id), undefined, { token: otherToken })).code).toBe(20004);
    expect((await call(t.app, 'GET', `${versionsUrl(theirs.model.id)}/compare?a=${v1.id}&b=${v2.id}`, undefined, { token: otherToken })).code).toBe(20004);
    // Nothing changed.
    expect((await list()).data).toMatchObject({ defaultTrainingId: v1.id, effectiveTrainingId: v1.id });
  });

  it('a training version cannot be deleted nor made the default; once cancelled it can be deleted, and the model points at what is left', async () => {
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 50 });
    expect(r.code, r.message).toBe(0);
    const busy = await call(t.app, 'DELETE', versionUrl(s.model.id, r.data.id), undefined, { token, lang: 'zh' });
    expect([busy.status, busy.code]).toEqual([409, 40090]);
    expect((await setDefault(r.data.id)).code).toBe(40091);
    expect((await call(t.app, 'POST', `/api/models/${s.model.id}/trainings/${r.data.id}/stop`, undefined, { token })).code).toBe(0);
    await waitFor(t.app, token, s.model.id, r.data.id, ENDED, 60_000);
    const model = await call<{ trainId: number }>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token });
    expect(model.data.trainId).toBe(r.data.id);

    const gone = await call<VersionListData>(t.app, 'DELETE', versionUrl(s.model.id, r.data.id), undefined, { token });
    expect(gone.code, gone.message).toBe(0);
    expect(gone.data.items.map((v) => v.id)).toEqual([v2.id, v1.id]);
    const after = await call<{ trainId: number; trainingStatus: string }>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token });
    expect(after.data).toMatchObject({ trainId: v2.id, trainingStatus: 'succeeded' });
    expect((await call(t.app, 'GET', `/api/models/${s.model.id}/trainings/${r.data.id}`, undefined, { token })).code).toBe(20004);
  }, 120_000);

  it('deleting the default version falls back to the latest, frees its files, and tests and exports then use the latest', async () => {
    const files = await artifactsOf(v1.id);
    expect(files.best).toBeTruthy();
    expect(fs.existsSync(blobFile(files.best!))).toBe(true);
    const packSha = (await t.app.deps.db.selectFrom('model_packs').select('artifact_sha').where('training_id', '=', v1.id).executeTakeFirstOrThrow()).artifact_sha!;
    expect(fs.existsSync(blobFile(packSha))).toBe(true);

    const r = await call<VersionListData>(t.app, 'DELETE', versionUrl(s.model.id, v1.id), undefined, { token });
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ defaultTrainingId: null, effectiveTrainingId: v2.id });
    expect(r.data.items.map((v) => v.id)).toEqual([v2.id]);
    for (const sha of [...Object.values(files), packSha]) expect(fs.existsSync(blobFile(sha)), sha).toBe(false);
    // v2 froze the same data: the shared snapshot and its image files stay.
    expect(fs.existsSync(blobFile((await t.app.deps.db.selectFrom('images').select('sha256').where('model_id', '=', s.model.id).executeTakeFirstOrThrow()).sha256))).toBe(true);
    expect((await artifactsOf(v2.id)).best).toBeTruthy();

    const test = await call<TestRunData>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { imageIds: s.images.slice(0, 2) }, { token });
    expect(test.code, test.message).toBe(0);
    expect(test.data.trainingId).toBe(v2.id);
    await waitTest(test.data.id);
    // The test of v1 went with it; v2's is the model's latest.
    const runs = await call<{ items: TestRunData[] }>(t.app, 'GET', `/api/models/${s.model.id}/tests`, undefined, { token });
    expect(runs.data.items.map((x) => x.trainingId)).toEqual([v2.id]);
    const pack = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: s.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false }, { token });
    expect(pack.code, pack.message).toBe(0);
    expect(pack.data.trainingId).toBe(v2.id);
    await waitForPack(t.app, token, s.model.id, 'model', 120_000);
  }, 240_000);

  it('a chosen default that is reset to none follows the latest again', async () => {
    expect((await setDefault(v2.id)).data).toMatchObject({ defaultTrainingId: v2.id, effectiveTrainingId: v2.id });
    expect((await setDefault(null)).data).toMatchObject({ defaultTrainingId: null, effectiveTrainingId: v2.id });
    expect((await setDefault(999_999)).code).toBe(20004);
  });
});
