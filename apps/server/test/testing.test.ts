import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageListData, ModelData, TestImagesData, TestResultsData, TestRunData, TestRunListData, UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, send, uploadUrl, userToken } from './gallery-fixtures.js';
import { labeledStudio, parseSse, start as startTraining, TINY, trainedStudio, trainingUrl, waitFor as waitForTraining } from './training-fixtures.js';
import { load, save } from './labeling-fixtures.js';
import { matchImage } from '../src/services/testing/matching.js';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const testsUrl = (modelId: number) => `/api/models/${modelId}/tests`;
const testUrl = (modelId: number, id: number) => `/api/models/${modelId}/tests/${id}`;
const startTest = (modelId: number, body: Record<string, unknown> = {}) => call<TestRunData>(t.app, 'POST', testsUrl(modelId), body, { token });
const model = async (id: number) => (await call<ModelData>(t.app, 'GET', `/api/models/${id}`, undefined, { token })).data;

async function run(modelId: number, id: number): Promise<TestRunData> {
  const r = await call<TestRunData>(t.app, 'GET', testUrl(modelId, id), undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

const ACTIVE = ['queued', 'preparing', 'testing'];
/** Polls the run until it ends (the engine runs in its own process; this only waits for it). */
async function finished(modelId: number, id: number, timeoutMs = 30_000): Promise<TestRunData> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await run(modelId, id);
    if (!ACTIVE.includes(r.status)) return r;
    if (Date.now() > deadline) throw new Error(`test ${id} stuck in ${r.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

async function images(modelId: number, id: number, query = ''): Promise<TestImagesData> {
  const r = await call<TestImagesData>(t.app, 'GET', `${testUrl(modelId, id)}/images${query}`, undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

const box = (x1: number, y1: number, x2: number, y2: number) => ({ kind: 'box' as const, x1, y1, x2, y2 });

describe('matching detections to ground truth (IoU ≥ 0.5, same label, most confident first)', () => {
  it('counts true and false positives and missed objects per label', () => {
    const m = matchImage(
      [
        { labelId: 1, geometry: box(0, 0, 10, 10), confidence: 0.6 },
        // The same object found twice: the second detection is a false positive.
        { labelId: 1, geometry: box(1, 0, 11, 10), confidence: 0.5 },
        // Right place, wrong label.
        { labelId: 2, geometry: box(50, 50, 60, 60), confidence: 0.9 },
        // Right label, too little overlap (IoU 1/3).
        { labelId: 1, geometry: box(55, 50, 65, 60), confidence: 0.4 },
      ],
      [
        { labelId: 1, geometry: box(0, 0, 10, 10) },
        { labelId: 1, geometry: box(50, 50, 60, 60) },
      ],
      false,
    );
    expect([m.tp, m.fp, m.fn]).toEqual([1, 3, 1]);
    expect(m.predictions.map((p) => p.matched)).toEqual([true, false, false, false]);
    expect(m.groundTruth.map((g) => g.matched)).toEqual([true, false]);
  });

  it('lets the most confident detection take the object, whatever the input order', () => {
    const truth = [{ labelId: 1, geometry: box(0, 0, 10, 10) }];
    const m = matchImage(
      [
        { labelId: 1, geometry: box(0, 0, 10, 10), confidence: 0.3 },
        { labelId: 1, geometry: box(0, 0, 10, 8), confidence: 0.8 },
      ],
      truth,
      false,
    );
    expect(m.predictions.map((p) => p.matched)).toEqual([false, true]);
    expect(matchImage([], truth, false)).toMatchObject({ tp: 0, fp: 0, fn: 1 });
    expect(matchImage([], [], false)).toMatchObject({ tp: 0, fp: 0, fn: 0 });
  });

  it('compares rotated boxes by polygon IoU, and an axis-aligned model with each shape\'s bounding box', () => {
    const diamond = { kind: 'rbox' as const, cx: 50, cy: 50, w: 20, h: 20, angle: 45 };
    const square = box(40, 40, 60, 60);
    // A square and the same square turned 45°: the overlap is a regular octagon, IoU √2/2 ≈ 0.707.
    expect(matchImage([{ labelId: 1, geometry: diamond, confidence: 0.9 }], [{ labelId: 1, geometry: square }], true).tp).toBe(1);
    // Turned 45° with a 2:1 aspect, the overlap with the upright box falls under 0.5.
    const bar = { kind: 'rbox' as const, cx: 50, cy: 50, w: 40, h: 10, angle: 45 };
    expect(matchImage([{ labelId: 1, geometry: bar, confidence: 0.9 }], [{ labelId: 1, geometry: box(30, 45, 70, 55) }], true).tp).toBe(0);
    expect(matchImage([{ labelId: 1, geometry: { ...bar, angle: 44 }, confidence: 0.9 }], [{ labelId: 1, geometry: bar }], true).tp).toBe(1);
    // An axis-aligned model learned a triangle as its bounding box, so that box is a hit.
    const triangle = { kind: 'polygon' as const, points: [[0, 0], [20, 0], [0, 20]] as [number, number][] };
    expect(matchImage([{ labelId: 1, geometry: box(0, 0, 20, 20), confidence: 0.9 }], [{ labelId: 1, geometry: triangle }], false).tp).toBe(1);
    expect(matchImage([{ labelId: 1, geometry: { kind: 'rbox', cx: 10, cy: 10, w: 20, h: 20, angle: 0 }, confidence: 0.9 }], [{ labelId: 1, geometry: triangle }], true).tp).toBe(1);
  });
});

describe('test start rules (SPEC §8)', () => {
  it('answers 80066 for a model without a succeeded training', async () => {
    const s = await labeledStudio(t.app, token, { count: 2, split: false });
    const r = await startTest(s.model.id, { source: 'images', imageIds: s.images });
    expect([r.status, r.code]).toEqual([409, 80066]);
    expect((await call<TestRunListData>(t.app, 'GET', testsUrl(s.model.id), undefined, { token })).data).toEqual({ items: [], total: 0 });
  });

  it('checks the settings (conf and iou within 0–1, a known test-time augmentation)', async () => {
    const s = await labeledStudio(t.app, token, { count: 2, split: false });
    const tta = await call(t.app, 'POST', testsUrl(s.model.id), { settings: { tta: 'rotate' } }, { token });
    expect([tta.status, tta.code]).toEqual([400, 20001]);
    for (const [settings, name] of [[{ conf: 1.5 }, 'Konfidenzschwelle'], [{ iou: -0.1 }, 'IOU-Schwelle']] as const) {
      const r = await call(t.app, 'POST', testsUrl(s.model.id), { settings }, { token, lang: 'de' });
      expect([r.status, r.code]).toEqual([400, 20001]);
      expect(r.message).toContain(name);
    }
  });
});

describe('a test on the real engine', () => {
  let s: Awaited<ReturnType<typeof trainedStudio>>;
  let first: TestRunData;
  let extra: number;

  beforeAll(async () => {
    s = await trainedStudio(t.app, token);
    const up = await send<UploadData>(t.app, token, uploadUrl(s.model.id), [{ filename: 'new.png', data: await draw('png', 64, 64, 99) }]);
    extra = up.data.results[0]!.imageId!;
  }, 60_000);

  it('answers 8005 when there is nothing to test, and notFound for an image of another model', async () => {
    const none = await startTest(s.model.id);
    expect([none.status, none.code]).toEqual([409, 8005]);
    const empty = await startTest(s.model.id, { source: 'images', imageIds: [] });
    expect([empty.status, empty.code]).toEqual([409, 8005]);
    const other = await labeledStudio(t.app, token, { count: 1, split: false });
    const foreign = await startTest(s.model.id, { imageIds: other.images });
    expect([foreign.status, foreign.code]).toEqual([404, 20004]);
  });

  it('refuses a test while the model trains (40001)', async () => {
    const tr = await startTraining(t.app, token, s.model.id, { ...TINY, epochs: 200 });
    expect(tr.code, tr.message).toBe(0);
    const r = await startTest(s.model.id);
    expect([r.status, r.code]).toEqual([409, 40001]);
    await call(t.app, 'POST', `${trainingUrl(s.model.id, tr.data.id)}/stop`, undefined, { token });
    await waitForTraining(t.app, token, s.model.id, tr.data.id, (x) => x.status === 'cancelled');
  });

  it('tests the test split: one at a time, progress over SSE, then succeeded with matches per image', async () => {
    const testSplit = s.images.slice(8);
    await call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids: testSplit, split: 'test' }, { token });
    // An untrained-looking one-epoch model: a low threshold makes sure there are detections to match.
    // Test-time augmentation reaches the engine: its summary names the views it averaged.
    const r = await startTest(s.model.id, { settings: { conf: 0.001, half: true, tta: 'hflip' } });
    expect(r.code, r.message).toBe(0);
    first = r.data;
    expect(first).toMatchObject({ trainingId: s.trainingId, version: 'v1', source: 'testSplit', imageCount: 4, settings: { conf: 0.001, iou: 0.6, half: true, agnostic: false, tta: 'hflip' } });
    expect(ACTIVE).toContain(first.status);
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'testing' });

    const again = await startTest(s.model.id);
    expect([again.status, again.code]).toEqual([409, 40004]);
    const training = await startTraining(t.app, token, s.model.id);
    expect([training.status, training.code]).toEqual([409, 40004]);

    // The stream ends after the terminal state, so inject returns the whole live session.
    const res = await t.app.inject({ method: 'GET', url: `${testUrl(s.model.id, first.id)}/events`, headers: { 'x-token': token } });
    expect(res.headers['content-type']).toContain('text/event-stream');
    const events = parseSse(res.body);
    expect(events.at(-1)).toEqual({ event: 'state', data: { status: 'succeeded', error: null } });
    expect(events.filter((e) => e.event === 'progress').at(-1)!.data).toEqual({ phase: 'testing', done: 4, total: 4 });

    const done = await run(s.model.id, first.id);
    expect(done).toMatchObject({ status: 'succeeded', done: 4, error: null });
    expect(done.endedAt).not.toBeNull();
    // Ground truth exists, so the engine's metrics come with the summary.
    expect(done.summary).toHaveProperty('mAP50');
    expect(done.summary).toMatchObject({ images: 4, conf: 0.001, tta: 'hflip' });
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', testStatus: 'succeeded' });

    const all = await images(s.model.id, first.id);
    expect(all.items.map((i) => i.imageId)).toEqual(testSplit);
    let predictions = 0;
    for (const img of all.items) {
      // One box each: found (tp) or missed (fn); every other detection is a false positive.
      expect(img.tp + img.fn).toBe(1);
      expect(img.groundTruth).toHaveLength(1);
      expect(img.groundTruth[0]!.matched).toBe(img.tp === 1);
      expect(img.tp + img.fp).toBe(img.predictions.length);
      expect(img.predictions.filter((p) => p.matched)).toHaveLength(img.tp);
      expect(img.predictions.length).toBeGreaterThan(0);
      for (const p of img.predictions) {
        // Engine boxes (x, y, w, h, not clipped) stored as annotation corners clamped into the 64×64 image.
        const g = p.geometry as { kind: string; x1: number; y1: number; x2: number; y2: number };
        expect([p.labelId, g.kind]).toEqual([s.labels.scratch, 'box']);
        expect(g.x1 < g.x2 && g.y1 < g.y2 && g.x1 >= 0 && g.y1 >= 0 && g.x2 <= 64 && g.y2 <= 64, JSON.stringify(g)).toBe(true);
        expect(p.confidence).toBeGreaterThanOrEqual(0.001);
      }
      expect(img.thumbUrl).toBe(`/api/models/${s.model.id}/images/${img.imageId}/thumbnail`);
      expect(img.imageUrl).toBe(`/api/models/${s.model.id}/images/${img.imageId}/original`);
      predictions += img.predictions.length;
    }
    // Only detections with no area inside the image are dropped.
    expect(predictions).toBeGreaterThan(0);
    expect(predictions).toBeLessThanOrEqual(done.summary!.detections as number);
    expect([done.tp, done.fp, done.fn]).toEqual(['tp', 'fp', 'fn'].map((k) => all.items.reduce((n, i) => n + (i[k as 'tp'] as number), 0)));

    // The labeling studio shows the same detections, and the gallery counts the images as tested with results.
    const shown = await call<TestResultsData>(t.app, 'GET', `/api/models/${s.model.id}/images/${testSplit[0]}/test-results`, undefined, { token });
    expect(shown.data.results).toHaveLength(all.items[0]!.predictions.length);
    const tested = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images?filter=testedWithResults`, undefined, { token });
    expect(tested.data.items.map((i) => i.id).sort()).toEqual([...testSplit].sort());
    expect(tested.data.items[0]!.testResultCount).toBeGreaterThan(0);
  });

  it('tests chosen images and filters a run\'s images; a second run replaces the detections', async () => {
    const labeled = s.images[0]!;
    // No score reaches 1: nothing is detected, so the labeled image's box is missed.
    const r = await startTest(s.model.id, { imageIds: [extra, labeled, extra], settings: { conf: 1 } });
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ source: 'images', imageCount: 2 });
    const done = await finished(s.model.id, r.data.id);
    expect(done).toMatchObject({ status: 'succeeded', tp: 0, fp: 0, fn: 1 });
    expect(done.summary).toMatchObject({ detections: 0 });

    const ids = async (id: number, filter: string) => (await images(s.model.id, id, `?filter=${filter}`)).items.map((i) => i.imageId);
    expect(await ids(r.data.id, 'noResults')).toEqual([labeled, extra]);
    expect(await ids(r.data.id, 'withResults')).toEqual([]);
    expect(await ids(r.data.id, 'errors')).toEqual([labeled]);
    const missed = (await images(s.model.id, r.data.id, '?filter=errors')).items[0]!;
    expect(missed).toMatchObject({ tp: 0, fp: 0, fn: 1, predictions: [] });
    expect(missed.groundTruth).toEqual([{ labelId: s.labels.scratch, geometry: (await load(t.app, token, s, labeled)).annotations[0]!.geometry, matched: false }]);
    const page2 = await images(s.model.id, r.data.id, '?page=2&pageSize=1');
    expect([page2.total, page2.items.map((i) => i.imageId)]).toEqual([2, [extra]]);

    // The first run keeps its own results: every image has detections, and each one misses or adds something.
    expect(await ids(first.id, 'withResults')).toEqual(s.images.slice(8));
    expect(await ids(first.id, 'noResults')).toEqual([]);
    expect(await ids(first.id, 'errors')).toEqual(s.images.slice(8));

    const gallery = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images?filter=testedNoResults`, undefined, { token });
    expect(gallery.data.items.map((i) => i.id).sort()).toEqual([labeled, extra].sort());

    // A reconnect (or a late page) gets the current state replayed, then the stream ends.
    const replay = parseSse((await t.app.inject({ method: 'GET', url: `${testUrl(s.model.id, r.data.id)}/events`, headers: { 'x-token': token } })).body);
    expect(replay).toEqual([
      { event: 'progress', data: { phase: 'testing', done: 2, total: 2 } },
      { event: 'state', data: { status: 'succeeded', error: null } },
    ]);
    const list = await call<TestRunListData>(t.app, 'GET', testsUrl(s.model.id), undefined, { token });
    expect(list.data.items.map((i) => i.id)).toEqual([r.data.id, first.id]);
  });

  it('stop makes a test fail (SPEC §4) and puts its images back', async () => {
    const r = await startTest(s.model.id, { imageIds: [extra] });
    expect(r.code, r.message).toBe(0);
    const stop = await call<TestRunData>(t.app, 'POST', `${testUrl(s.model.id, r.data.id)}/stop`, undefined, { token });
    expect(stop.code, stop.message).toBe(0);
    const done = await finished(s.model.id, r.data.id);
    expect(done.status).toBe('failed');
    expect(done.error).toBe('Stopped before it finished.');
    expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', testStatus: 'failed' });
    // Tested by the run before: still tested, not left waiting.
    const img = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images?filter=unprocessed`, undefined, { token });
    expect(img.data.total).toBe(0);
    const again = await call(t.app, 'POST', `${testUrl(s.model.id, r.data.id)}/stop`, undefined, { token });
    expect([again.status, again.code]).toEqual([409, 40005]);
  });

  it('fails a test whose runner stopped answering on its last attempt, with the reason in the caller\'s language', async () => {
    const { db } = t.app.deps;
    const now = Date.now();
    const owner = (await db.selectFrom('models').select('owner_id').where('id', '=', s.model.id).executeTakeFirstOrThrow()).owner_id;
    // Its runner died: the lease ran out on the last of its attempts.
    const job = await db
      .insertInto('jobs')
      .values({ kind: 'test', model_id: s.model.id, owner_id: owner, state: 'running', attempts: 3, payload: '{}', created_at: now, started_at: now, heartbeat_at: now, lease_owner: 'dead-runner:1', lease_until: now - 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const runId = await t.app.deps.testRuns.insert(
      db,
      { model_id: s.model.id, training_id: s.trainingId, job_id: job.id, status: 'testing', source: 'images', settings: '{}', image_count: 1, summary: null, error: null, created_at: now, started_at: now, ended_at: null },
      [extra],
    );
    await db.updateTable('models').set({ test_id: runId, test_status: 'testing', project_status: 'testing' }).where('id', '=', s.model.id).execute();
    await db.updateTable('images').set({ test_state: 'unprocessed' }).where('id', '=', extra).execute();

    // A second server on the same database reaps it at start-up.
    const second = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema });
    try {
      const r = await call<TestRunData>(second.app, 'GET', testUrl(s.model.id, runId), undefined, { token });
      expect(r.data).toMatchObject({ status: 'failed', error: 'The machine running this job stopped answering and no other runner could finish it; start it again.' });
      // The reason in the caller's language (stored as a code: contracts failures.ts).
      const zh = await call<TestRunData>(second.app, 'GET', testUrl(s.model.id, runId), undefined, { token, lang: 'zh' });
      expect(zh.data.error).toBe('运行此任务的机器停止响应，且没有其他运行器能完成它；请重新开始。');
      expect(await model(s.model.id)).toMatchObject({ projectStatus: 'no', testStatus: 'failed' });
      const img = await call<ImageListData>(t.app, 'GET', `/api/models/${s.model.id}/images?filter=unprocessed`, undefined, { token });
      expect(img.data.total).toBe(0);
    } finally {
      await second.app.close();
    }
  });

  it('answers 9002 once an annotation changed after the training', async () => {
    const img = s.images[0]!;
    const current = await load(t.app, token, s, img);
    const r = await save(t.app, token, s, img, current.version, [{ labelId: s.labels.scratch!, geometry: box(2, 2, 30, 30) }]);
    expect(r.code, r.message).toBe(0);
    const refused = await startTest(s.model.id);
    expect([refused.status, refused.code]).toEqual([409, 9002]);
  });
});

describe('a test of a rotated-box training', () => {
  it('stores rotated detections, averaged over test-time views, and matches them against the boxes by polygon IoU', async () => {
    const s = await trainedStudio(t.app, token, { rotated: true });
    const testSplit = s.images.slice(8);
    await call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids: testSplit, split: 'test' }, { token });
    // Rotated boxes average as centres and shape matrices (engine tta.py): the 8 views run through the engine.
    const r = await startTest(s.model.id, { settings: { conf: 0.001, tta: 'dihedral' } });
    expect(r.code, r.message).toBe(0);
    const done = await finished(s.model.id, r.data.id);
    expect(done).toMatchObject({ status: 'succeeded', done: 4, settings: { tta: 'dihedral' } });
    expect(done.summary).toMatchObject({ images: 4, tta: 'dihedral' });
    const page = await images(s.model.id, r.data.id);
    for (const img of page.items) {
      expect(img.tp + img.fn).toBe(1);
      expect(img.tp + img.fp).toBe(img.predictions.length);
      for (const p of img.predictions) {
        const g = p.geometry as { kind: string; cx: number; cy: number; w: number; h: number; angle: number };
        expect(g.kind).toBe('rbox');
        expect(g.w > 0 && g.h > 0 && Number.isFinite(g.angle + g.cx + g.cy), JSON.stringify(g)).toBe(true);
      }
    }
    expect(page.items.some((i) => i.predictions.length > 0)).toBe(true);
  }, 60_000);
});
