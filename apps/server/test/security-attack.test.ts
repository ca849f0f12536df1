import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type PretrainedListData, type TrainingData } from '@loupe/contracts';
import { engineParams } from '../src/services/training/pretrained.js';
import { call, startApp, type TestApp } from './helper.js';
import { bmp, newModel, send, uploadUrl, userToken } from './gallery-fixtures.js';
import { labeledStudio, start, TINY, trainedStudio, trainingsUrl, waitFor } from './training-fixtures.js';

/**
 * Issue 30 item 1: `pretrained` was a free string handed to the engine's torch.load (pickle). An approved user
 * uploads a file that is both a valid BMP and a pickle whose payload creates a marker file, then tries every way
 * to make a training load it or another account's weights. Each must be a clear catalogue refusal, no job may
 * be queued, and the marker may never appear; the one legitimate use (an own succeeded version) still trains.
 */
let t: TestApp;
let alice: string;
let bob: string;
const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-attack-')), 'pwned');

beforeAll(async () => {
  t = await startApp();
  [alice, bob] = [await userToken(t.app), await userToken(t.app)];
});
afterAll(async () => {
  await t.close();
  fs.rmSync(path.dirname(marker), { recursive: true, force: true });
});

/** A pickle (protocol 0) whose unpickling calls os.mkdir(marker): what a shell command would be in a real attack. */
const pickle = (target: string) => Buffer.from(`cposix\nmkdir\n(S'${target}'\ntR.`, 'latin1');
/** A BMP the gallery accepts, with the pickle after its pixels. */
const polyglot = () => Buffer.concat([bmp(64, 64, { seed: 3 }), pickle(marker)]);

const jobCount = async () => Number((await t.app.deps.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('pretrained cannot load a file of the user’s choosing (issue 30 item 1)', () => {
  let modelId: number;
  let blobPath: string;
  let bobsVersion: number;
  let cancelled: number;
  let own: number;

  it('the polyglot is stored as an image, so its blob path is known to the attacker', async () => {
    const s = await labeledStudio(t.app, alice);
    modelId = s.model.id;
    const data = polyglot();
    const up = await send(t.app, alice, uploadUrl(modelId), [{ filename: 'evil.bmp', data, type: 'image/bmp' }]);
    expect(up.code, up.message).toBe(0);
    const stored = await t.app.deps.db.selectFrom('images').select('sha256').where('model_id', '=', modelId).where('sha256', '=', createHash('sha256').update(data).digest('hex')).executeTakeFirst();
    blobPath = await t.app.deps.blobs.localFile(stored?.sha256 ?? (await t.app.deps.db.selectFrom('images').select('sha256').where('model_id', '=', modelId).orderBy('id', 'desc').executeTakeFirstOrThrow()).sha256);
    expect(fs.existsSync(blobPath)).toBe(true);
  });

  it('another account’s succeeded training and an own cancelled one exist', async () => {
    const b = await trainedStudio(t.app, bob);
    bobsVersion = b.trainingId;
    const r = await start(t.app, alice, modelId, { ...TINY, epochs: 50 });
    expect(r.code, r.message).toBe(0);
    const stop = await call<TrainingData>(t.app, 'POST', `${trainingsUrl(modelId)}/${r.data.id}/stop`, undefined, { token: alice });
    expect(stop.code, stop.message).toBe(0);
    await waitFor(t.app, alice, modelId, r.data.id, (x) => x.status === 'cancelled');
    cancelled = r.data.id;
  }, 120_000);

  it('refuses every path, every foreign or unknown id and every non-id, before any job is queued', async () => {
    const validation = Errors.validation.code;
    const attempts: [unknown, number, RegExp][] = [
      [blobPath, validation, /pretrained/i],
      [path.relative(path.join(t.config.dataDir, 'trainings', '1'), blobPath), validation, /pretrained/i],
      ['../../../../etc/passwd', validation, /pretrained/i],
      ['/etc/passwd', validation, /pretrained/i],
      [`${bobsVersion}/../../blobs`, validation, /pretrained/i],
      ['file:///etc/passwd', validation, /pretrained/i],
      ['abc', validation, /pretrained/i],
      [' 1', validation, /pretrained/i],
      ['0', validation, /pretrained/i],
      ['-1', validation, /pretrained/i],
      ['1e3', validation, /pretrained/i],
      ['0x1', validation, /pretrained/i],
      [bobsVersion, validation, /pretrained/i],
      [String(bobsVersion), Errors.pretrainedNotFound.code, new RegExp(`Version ${bobsVersion} is not one of your trained versions`)],
      ['999999999', Errors.pretrainedNotFound.code, /Version 999999999 is not one of your trained versions/],
      [String(cancelled), Errors.pretrainedNoWeights.code, /has no trained weights to start from/],
    ];
    const jobs = await jobCount();
    const before = (await call<{ total: number }>(t.app, 'GET', trainingsUrl(modelId), undefined, { token: alice })).data.total;
    for (const [value, code, message] of attempts) {
      const r = await start(t.app, alice, modelId, { ...TINY, pretrained: value });
      expect([value, r.code, r.status], r.message).toEqual([value, code, code === validation ? 400 : Errors[code === Errors.pretrainedNotFound.code ? 'pretrainedNotFound' : 'pretrainedNoWeights'].status]);
      expect(r.message).toMatch(message);
      // Nothing about the server's files travels back.
      expect(r.message).not.toContain(t.config.dataDir);
    }
    expect(await jobCount()).toBe(jobs);
    expect((await call<{ total: number }>(t.app, 'GET', trainingsUrl(modelId), undefined, { token: alice })).data.total).toBe(before);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('says it in the caller’s language, and another account’s id answers like an unknown one', async () => {
    const foreign = await start(t.app, alice, modelId, { ...TINY, pretrained: String(bobsVersion) }, 'de');
    const unknown = await start(t.app, alice, modelId, { ...TINY, pretrained: '999999998' }, 'de');
    expect(foreign.message).toBe(`Version ${bobsVersion} ist keine Ihrer trainierten Versionen, daher kann kein Training von ihr ausgehen. Wählen Sie eine Ihrer fertigen Versionen oder keine.`);
    expect(unknown.message.replace('999999998', String(bobsVersion))).toBe(foreign.message);
  });

  it('cannot be saved for later either (/parameter)', async () => {
    const url = `/api/models/${modelId}/parameters`;
    for (const [value, code] of [[blobPath, Errors.validation.code], [String(bobsVersion), Errors.pretrainedNotFound.code]] as const) {
      const r = await call(t.app, 'PUT', url, { params: { pretrained: value } }, { token: alice });
      expect([value, r.code]).toEqual([value, code]);
    }
    const saved = await call<{ saved: Record<string, unknown> }>(t.app, 'GET', url, undefined, { token: alice });
    expect(saved.data.saved.pretrained).toBeUndefined();
  });

  it('a path smuggled into the stored parameters is still never handed to the engine', async () => {
    // As if a row were written before this fix: the job resolves the value again and fails the training clearly.
    const r = await start(t.app, alice, modelId, { ...TINY });
    expect(r.code, r.message).toBe(0);
    // Not yet claimed? Rewrite its parameters; if the runner was faster this run is just a normal one.
    await t.app.deps.db.updateTable('trainings').set({ parameters: JSON.stringify({ ...TINY, pretrained: blobPath }) }).where('id', '=', r.data.id).where('status', '=', 'queued').execute();
    const done = await waitFor(t.app, alice, modelId, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    if (done.params.pretrained === blobPath) {
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/starting weights could not be found/i);
    } else {
      expect(done.status, done.error ?? '').toBe('succeeded');
    }
    own = r.data.id;
    expect(fs.existsSync(marker)).toBe(false);
  }, 120_000);

  it('an own succeeded version starts a training from a copy the server made', async () => {
    // The version to start from: the one above when it succeeded, else a fresh one.
    let source = own;
    const rows = (await call<{ items: TrainingData[] }>(t.app, 'GET', trainingsUrl(modelId), undefined, { token: alice })).data.items;
    if (rows.find((x) => x.id === own)?.status !== 'succeeded') {
      const r = await start(t.app, alice, modelId, TINY);
      expect(r.code, r.message).toBe(0);
      expect((await waitFor(t.app, alice, modelId, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status))).status).toBe('succeeded');
      source = r.data.id;
    }
    const choices = await call<PretrainedListData>(t.app, 'GET', '/api/trainings/pretrained', undefined, { token: alice });
    expect(choices.data.items.map((c) => c.trainingId)).toContain(source);
    expect(choices.data.items.map((c) => c.trainingId)).not.toContain(bobsVersion);
    expect(choices.data.items.map((c) => c.trainingId)).not.toContain(cancelled);

    const r = await start(t.app, alice, modelId, { ...TINY, pretrained: String(source) });
    expect(r.code, r.message).toBe(0);
    const done = await waitFor(t.app, alice, modelId, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status));
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(done.params.pretrained).toBe(String(source));
    // The engine's own record of its config (results.json): the server's copy in the job's work folder.
    const results = (await t.app.deps.db.selectFrom('trainings').select('artifacts').where('id', '=', r.data.id).executeTakeFirstOrThrow()).artifacts;
    const config = (JSON.parse((await t.app.deps.blobs.readBuffer((JSON.parse(results) as { results: string }).results)).toString('utf8')) as { config: { pretrained: string } }).config;
    const jobId = (await t.app.deps.db.selectFrom('trainings').select('job_id').where('id', '=', r.data.id).executeTakeFirstOrThrow()).job_id;
    expect(config.pretrained).toBe(path.join(t.config.dataDir, 'jobs', String(jobId), 'pretrained.pt'));
    expect(fs.existsSync(marker)).toBe(false);
  }, 180_000);
});

describe('test settings cannot carry engine arguments (issue 30 item 1 audit)', () => {
  it('drops keys beyond the test settings, which would land in the engine’s job spec beside its file paths', async () => {
    const s = await trainedStudio(t.app, alice);
    const settings = { conf: 0.3, out: '/tmp/loupe-evil.json', model: '/etc/passwd', spec: '/x', images: '../../..' };
    const r = await call<{ id: number; settings: Record<string, unknown> }>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { source: 'images', imageIds: [s.images[0]], settings }, { token: alice });
    expect(r.code, r.message).toBe(0);
    const known = ['agnostic', 'conf', 'half', 'iou', 'tta'];
    expect(Object.keys(r.data.settings).sort()).toEqual(known);
    expect(r.data.settings.conf).toBe(0.3);
    const row = await t.app.deps.db.selectFrom('test_runs').select('settings').where('id', '=', r.data.id).executeTakeFirstOrThrow();
    expect(Object.keys(JSON.parse(row.settings) as object).sort()).toEqual(known);
  }, 120_000);
});

describe('the job resolves pretrained again when it runs (engineParams)', () => {
  it('copies the weights into the job folder, keeps that copy for a resume, refuses a source gone or foreign', async () => {
    const s = await trainedStudio(t.app, alice);
    const { db, blobs } = t.app.deps;
    const ownerOf = async (modelId: number) => Number((await db.selectFrom('models').select('owner_id').where('id', '=', modelId).executeTakeFirstOrThrow()).owner_id);
    const aliceId = await ownerOf(s.model.id);
    const bobId = await ownerOf((await newModel(t.app, bob)).id);
    const dir = fs.mkdtempSync(path.join(t.config.dataDir, 'job-'));
    const copy = path.join(dir, 'pretrained.pt');
    const stored = { epochs: 1, pretrained: String(s.trainingId) };

    expect(await engineParams(t.app.deps, aliceId, stored, dir, false)).toEqual({ epochs: 1, pretrained: copy });
    const artifacts = (await db.selectFrom('trainings').select('artifacts').where('id', '=', s.trainingId).executeTakeFirstOrThrow()).artifacts;
    expect(fs.readFileSync(copy).equals(await blobs.readBuffer((JSON.parse(artifacts) as { best: string }).best))).toBe(true);
    // A job of another account never gets them.
    await expect(engineParams(t.app.deps, bobId, stored, fs.mkdtempSync(path.join(t.config.dataDir, 'job-')), false)).rejects.toMatchObject({ key: 'pretrainedNotFound' });

    const del = await call(t.app, 'DELETE', `/api/models/${s.model.id}`, undefined, { token: alice });
    expect(del.code, del.message).toBe(0);
    // A fresh run of a training whose source went away is refused; a resume keeps the copy its first run made.
    await expect(engineParams(t.app.deps, aliceId, stored, fs.mkdtempSync(path.join(t.config.dataDir, 'job-')), false)).rejects.toMatchObject({ key: 'pretrainedNotFound' });
    expect(await engineParams(t.app.deps, aliceId, stored, dir, true)).toEqual({ epochs: 1, pretrained: copy });
    // From scratch: no pretrained key at all, and no stale copy left for the engine.
    expect(await engineParams(t.app.deps, aliceId, { epochs: 1, pretrained: '' }, dir, false)).toEqual({ epochs: 1 });
    expect(fs.existsSync(copy)).toBe(false);
  }, 120_000);
});
