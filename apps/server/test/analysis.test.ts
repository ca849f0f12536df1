import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisFixData, DatasetAnalysisData, Finding, ImageAnnotationsData, LabelData, UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { newModel, pixels, send, uploadUrl, userToken } from './gallery-fixtures.js';
import { annotationsUrl, dataVersion, load } from './labeling-fixtures.js';
import { analyseForAgent } from '../src/services/analysis/analysis.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const analysisUrl = (modelId: number) => `/api/models/${modelId}/analysis`;
const fixUrl = (modelId: number, id: number) => `/api/models/${modelId}/analysis/${id}/fix`;
const box = (x1: number, y1: number, x2: number, y2: number) => ({ kind: 'box' as const, x1, y1, x2, y2 });

const png = (raw: Buffer) => sharp(raw, { raw: { width: 64, height: 64, channels: 3 } }).png().toBuffer();

/**
 * A detection model of six 64×64 noise images: 0–2 train, 3–4 valid, 5 unlabeled in no split. Image 4 is image
 * 0 with one pixel changed (a near duplicate across splits: leakage); image 1 also holds a box 0.5 px wide
 * (degenerate), image 2 the same box twice (a double label).
 */
async function plantedModel() {
  const model = await newModel(t.app, token, 'DETECTION');
  const raws = [0, 1, 2, 3].map((i) => pixels(64, 64, 900 + 10 * model.id + i));
  const twin = Buffer.from(raws[0]!);
  twin[0] = twin[0]! ^ 0x01;
  raws.push(twin, pixels(64, 64, 990 + 10 * model.id));
  const files = await Promise.all(raws.map(async (raw, i) => ({ filename: `shot_${i}.png`, data: await png(raw) })));
  const up = await send<UploadData>(t.app, token, uploadUrl(model.id), files);
  expect(up.data.accepted, up.message).toBe(6);
  const ids = up.data.results.map((r) => r.imageId!);
  const label = (await call<LabelData>(t.app, 'POST', `/api/models/${model.id}/labels`, { name: 'scratch' }, { token })).data.id;
  const shapes: ReturnType<typeof box>[][] = [
    [box(8, 8, 30, 30)],
    [box(8, 8, 30, 30), box(40, 5, 40.5, 40)],
    [box(10, 10, 40, 40), box(10, 10, 40, 40.5)],
    [box(20, 20, 50, 44)],
    [box(8, 8, 30, 30)],
  ];
  for (const [i, set] of shapes.entries()) {
    const r = await call<ImageAnnotationsData>(t.app, 'PUT', annotationsUrl(model.id, ids[i]!), { baseVersion: 0, annotations: set.map((geometry) => ({ labelId: label, geometry })) }, { token });
    expect(r.code, r.message).toBe(0);
  }
  for (const [part, split] of [[ids.slice(0, 3), 'train'], [ids.slice(3, 5), 'valid']] as const) {
    expect((await call(t.app, 'POST', `/api/models/${model.id}/images/split`, { ids: part, split }, { token })).code).toBe(0);
  }
  return { model, ids, label };
}

/** Polls the model's latest analysis until it ends (the engine runs in its own process). */
async function finished(modelId: number, timeoutMs = 40_000): Promise<DatasetAnalysisData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call<DatasetAnalysisData>(t.app, 'GET', analysisUrl(modelId), undefined, { token });
    expect(r.code, r.message).toBe(0);
    if (!['queued', 'running'].includes(r.data.status)) return r.data;
    if (Date.now() > deadline) throw new Error(`analysis ${r.data.id} stuck in ${r.data.status}`);
    await new Promise((res) => setTimeout(res, 150));
  }
}

async function analyse(modelId: number, body: Record<string, unknown> = {}): Promise<DatasetAnalysisData> {
  const r = await call<DatasetAnalysisData>(t.app, 'POST', analysisUrl(modelId), body, { token });
  expect(r.code, r.message).toBe(0);
  const done = r.data.status === 'completed' ? r.data : await finished(modelId);
  expect(done.status, done.error ?? '').toBe('completed');
  return done;
}

const findingOf = (a: DatasetAnalysisData, code: Finding['code']) => a.result!.findings.find((f) => f.code === code);

describe('dataset analysis (issue 35)', () => {
  let s: Awaited<ReturnType<typeof plantedModel>>;
  let first: DatasetAnalysisData;

  beforeAll(async () => {
    s = await plantedModel();
  });

  it('analyses every image and names the planted problems by database ids; a second start while it runs is refused', async () => {
    const queued = await call<DatasetAnalysisData>(t.app, 'POST', analysisUrl(s.model.id), { imgsz: 64 }, { token });
    expect(queued.code, queued.message).toBe(0);
    expect(queued.data).toMatchObject({ status: 'queued', imgsz: 64, stale: false, result: null });
    const again = await call(t.app, 'POST', analysisUrl(s.model.id), { imgsz: 64, force: true }, { token, lang: 'en' });
    expect([again.status, again.message]).toEqual([409, 'This dataset is being analysed. Wait for the analysis to finish.']);
    first = await finished(s.model.id);
    expect(first.status, first.error ?? '').toBe('completed');
    expect(first.id).toBe(queued.data.id);
    const r = first.result!;
    // Seven boxes, the degenerate one not counted (training drops it).
    expect(r.counts).toMatchObject({ images: 6, labeled: 5, instances: 6 });
    expect(r.counts.perSplit.images).toEqual({ train: 3, val: 2, test: 0, none: 1 });
    expect(findingOf(first, 'unlabeled')!.imageIds).toEqual([s.ids[5]]);
    const leak = findingOf(first, 'leakage')!;
    expect(leak.fix).toBe('moveLeaked');
    expect(leak.pairs!.map((p) => [...p].sort())).toContainEqual([s.ids[0], s.ids[4]].sort());
    const annotations1 = (await load(t.app, token, { model: s.model, images: s.ids, labels: {} }, s.ids[1]!)).annotations;
    const thin = annotations1.find((a) => a.geometry.kind === 'box' && a.geometry.x2 - a.geometry.x1 < 1)!;
    expect(findingOf(first, 'degenerate_box')).toMatchObject({ fix: 'deleteDegenerate', annotationIds: [thin.id], imageIds: [s.ids[1]] });
    expect(findingOf(first, 'double_label')).toMatchObject({ fix: 'deleteDoubles', imageIds: [s.ids[2]] });
    expect(r.counts.perClass.map((c) => c.name)).toEqual(['scratch']);
  });

  it('GET shows the latest; the same data again answers the stored analysis; the agent reuses it too', async () => {
    const got = await call<DatasetAnalysisData>(t.app, 'GET', analysisUrl(s.model.id), undefined, { token });
    expect(got.data).toMatchObject({ id: first.id, status: 'completed', stale: false });
    const same = await call<DatasetAnalysisData>(t.app, 'POST', analysisUrl(s.model.id), { imgsz: 64 }, { token });
    expect(same.data.id).toBe(first.id);
    const deps = t.app.deps;
    const model = await deps.db.selectFrom('models').selectAll().where('id', '=', s.model.id).executeTakeFirstOrThrow();
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-agent-'));
    const reused = await analyseForAgent(deps, model, model.owner_id, { imgsz: 64, jobId: 1, workDir, ctx: { onStart: () => undefined, cancelled: () => false } });
    expect(reused.id).toBe(first.id);
    expect(reused.result.counts.images).toBe(6);
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('moveLeaked moves the twin outside train into train; the analysis is then stale and refuses further fixes', async () => {
    const fixed = await call<AnalysisFixData>(t.app, 'POST', fixUrl(s.model.id, first.id), { fix: 'moveLeaked' }, { token });
    expect(fixed.code, fixed.message).toBe(0);
    expect(fixed.data.fixed).toBe(1);
    const img = await t.app.deps.db.selectFrom('images').select('split').where('id', '=', s.ids[4]!).executeTakeFirstOrThrow();
    expect(img.split).toBe('train');
    expect((await call<DatasetAnalysisData>(t.app, 'GET', analysisUrl(s.model.id), undefined, { token })).data.stale).toBe(true);
    const stale = await call(t.app, 'POST', fixUrl(s.model.id, first.id), { fix: 'deleteDegenerate' }, { token, lang: 'en' });
    expect([stale.status, stale.message]).toEqual([409, 'The dataset changed since this analysis. Analyse it again before applying a fix.']);
  });

  it('deleteDegenerate deletes the box as a save in /mark would; nothing left answers nothingToFix', async () => {
    const second = await analyse(s.model.id, { imgsz: 64 });
    expect(second.id).not.toBe(first.id);
    expect(findingOf(second, 'leakage')).toBeUndefined();
    const before = await dataVersion(t.app, token, s.model.id);
    const fixed = await call<AnalysisFixData>(t.app, 'POST', fixUrl(s.model.id, second.id), { fix: 'deleteDegenerate' }, { token });
    expect(fixed.data, fixed.message).toEqual({ fixed: 1 });
    expect(await dataVersion(t.app, token, s.model.id)).toBe(before + 1);
    const after = await load(t.app, token, { model: s.model, images: s.ids, labels: {} }, s.ids[1]!);
    expect(after.annotations).toHaveLength(1);
    expect(after.version).toBe(2);
    const third = await analyse(s.model.id, { imgsz: 64 });
    expect(findingOf(third, 'degenerate_box')).toBeUndefined();
    const none = await call(t.app, 'POST', fixUrl(s.model.id, third.id), { fix: 'moveLeaked' }, { token, lang: 'en' });
    expect([none.status, none.message]).toEqual([409, 'There is nothing left to fix for this finding.']);
    const doubles = await call<AnalysisFixData>(t.app, 'POST', fixUrl(s.model.id, third.id), { fix: 'deleteDoubles' }, { token });
    expect(doubles.data, doubles.message).toEqual({ fixed: 1 });
    expect((await load(t.app, token, { model: s.model, images: s.ids, labels: {} }, s.ids[2]!)).annotations).toHaveLength(1);
  });

  it('an agent analysis of an image whose file is gone fails with the name the user gave the image, and the row says so', async () => {
    const model = await newModel(t.app, token, 'DETECTION');
    const up = await send<UploadData>(t.app, token, uploadUrl(model.id), [{ filename: 'lonely.png', data: await png(pixels(64, 64, 4242)) }]);
    const deps = t.app.deps;
    const image = await deps.db.selectFrom('images').selectAll().where('id', '=', up.data.results[0]!.imageId!).executeTakeFirstOrThrow();
    await deps.blobs.remove(image.sha256);
    const row = await deps.db.selectFrom('models').selectAll().where('id', '=', model.id).executeTakeFirstOrThrow();
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-agent-'));
    const run = analyseForAgent(deps, row, row.owner_id, { imgsz: 64, jobId: 1, workDir, ctx: { onStart: () => undefined, cancelled: () => false } });
    await expect(run).rejects.toMatchObject({ key: 'imageResolutionFailed', vars: { name: 'lonely.png' } });
    fs.rmSync(workDir, { recursive: true, force: true });
    const got = await call<DatasetAnalysisData>(t.app, 'GET', analysisUrl(model.id), undefined, { token, lang: 'en' });
    expect(got.data.status).toBe('failed');
    expect(got.data.error).toContain('lonely.png');
    // An analysis left running by an agent that died with its job does not block the model forever.
    const orphan = await deps.db
      .insertInto('dataset_analyses')
      .values({ model_id: model.id, owner_id: row.owner_id, job_id: null, manifest_sha: 'x', imgsz: 64, status: 'running', result: null, error: null, created_at: Date.now(), finished_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const settled = await call<DatasetAnalysisData>(t.app, 'GET', analysisUrl(model.id), undefined, { token });
    expect(settled.data).toMatchObject({ id: orphan.id, status: 'failed', stale: true });
  });

  it('refuses a bad body in the caller language, other users, and a model without images', async () => {
    const en = await call(t.app, 'POST', analysisUrl(s.model.id), { imgsz: 33 }, { token, lang: 'en' });
    const de = await call(t.app, 'POST', analysisUrl(s.model.id), { imgsz: 33 }, { token, lang: 'de' });
    expect([en.status, de.status]).toEqual([400, 400]);
    expect(de.message).not.toBe(en.message);
    expect((await call(t.app, 'POST', fixUrl(s.model.id, first.id), { fix: 'everything' }, { token })).status).toBe(400);

    const other = await userToken(t.app);
    for (const [method, url, body] of [['GET', analysisUrl(s.model.id), undefined], ['POST', analysisUrl(s.model.id), {}], ['POST', fixUrl(s.model.id, first.id), { fix: 'moveLeaked' }]] as const) {
      const r = await call(t.app, method, url, body, { token: other });
      expect([url, r.status]).toEqual([url, 404]);
    }
    const empty = await newModel(t.app, token, 'DETECTION');
    const refused = await call(t.app, 'POST', analysisUrl(empty.id), {}, { token, lang: 'en' });
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/^Dataset analysis failed: /);
    const never = await call(t.app, 'GET', analysisUrl(empty.id), undefined, { token, lang: 'en' });
    expect([never.status, never.message]).toEqual([404, 'This dataset has not been analysed yet.']);
    const rows = await t.app.deps.db.selectFrom('jobs').select('id').where('model_id', '=', empty.id).execute();
    expect(rows).toEqual([]);
  });
});
