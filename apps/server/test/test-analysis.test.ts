import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClassResult, PackStatusData, SuggestedConfidences, TestAnalysisData, TestImagesData, TestRunData, VersionListData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { downloader, waitForPack } from './delivery-fixtures.js';
import { trainedStudio } from './training-fixtures.js';
import { matchImage, type Prediction, type Truth } from '../src/services/testing/matching.js';
import type { TestImageDetail } from '../src/services/testing/record.js';
import { bestF1, classScores, recallConf } from '../src/services/testing/scores.js';
import { suggestConfidences, suggestFrom, storeSuggested } from '../src/services/testing/suggest.js';
import { confusion, detectionErrors } from '../src/services/testing/errors.js';
import { analyse } from '../src/services/testing/analysis.js';
import { insertTestRun } from '../src/services/testing/tests.js';
import { runTestJob } from '../src/runner/test-job.js';

const box = (x1: number, y1: number, x2: number, y2: number) => ({ kind: 'box' as const, x1, y1, x2, y2 });
const A = 1;
const B = 2;
const names = new Map([[A, 'a'], [B, 'b']]);

/** One image matched as a run matches it (matching.ts), stored as record.ts stores it. */
function detail(predictions: Prediction[], truth: Truth[]): TestImageDetail {
  const m = matchImage(predictions, truth, false);
  return { predictions: m.predictions, groundTruth: m.groundTruth };
}

/**
 * Class a: 4 objects, found at 0.9, 0.7 and 0.3, false detections at 0.8 and 0.6. Class b: 1 object found at
 * 0.95, a false detection at 0.5. Micro F1 by threshold (tp, fp, fn of 5 objects): 0.95 → 2/6, 0.9 → 4/7,
 * 0.8 → 4/8, 0.7 → 6/9, 0.6 → 6/10, 0.5 → 6/11, 0.3 → 8/12: best 2/3 at 0.7 and 0.3, the higher wins.
 */
function sweepCase(): TestImageDetail[] {
  const far = (i: number) => box(200 + i * 20, 200, 210 + i * 20, 210);
  const at = (i: number) => box(i * 20, 0, i * 20 + 10, 10);
  return [
    detail(
      [
        { labelId: A, geometry: at(0), confidence: 0.9 },
        { labelId: A, geometry: far(0), confidence: 0.8 },
        { labelId: A, geometry: at(1), confidence: 0.7 },
        { labelId: A, geometry: far(1), confidence: 0.6 },
        { labelId: A, geometry: at(2), confidence: 0.3 },
        { labelId: B, geometry: at(4), confidence: 0.95 },
        { labelId: B, geometry: far(2), confidence: 0.5 },
      ],
      [0, 1, 2, 3].map((i) => ({ labelId: A, geometry: at(i) })).concat([{ labelId: B, geometry: at(4) }]),
    ),
  ];
}

describe('suggested confidences from stored matches (handmade)', () => {
  const classes = classScores(sweepCase(), names, 0.25);

  it('finds the confidence of the best micro F1, per class too, and the NG recall confidence', () => {
    expect(classes.map((c) => [c.name, c.support, c.hits.length])).toEqual([['a', 4, 5], ['b', 1, 2]]);
    expect(bestF1(classes, 0.25)).toEqual({ conf: 0.7, f1: 2 / 3 });
    const s = suggestFrom(classes, 0.25, 7, { recallTarget: 0.75, ngNames: null })!;
    // a alone: 0.9 → 2/5, 0.7 → 4/7, 0.3 → 6/9 (best); b alone: 1 at 0.95.
    expect(s.f1).toEqual({ overall: 0.7, f1: 2 / 3, perClass: { a: 0.3, b: 0.95 } });
    // 0.75 of a's 4 objects: its third find (0.3); b's one find at 0.95: every NG class reaches it at 0.3.
    expect(s.recall).toEqual({ target: 0.75, conf: 0.3, classes: ['a', 'b'] });
    expect(s.testRunId).toBe(7);
    expect(suggestFrom(classes, 0.25, 7, { recallTarget: 0.75, ngNames: new Set(['b']) })!.recall).toEqual({ target: 0.75, conf: 0.95, classes: ['b'] });
    // a never finds its fourth object: no confidence reaches full recall.
    expect(recallConf(classes[0]!, 1)).toBeNull();
    expect(suggestFrom(classes, 0.25, 7, { recallTarget: 1, ngNames: null })!.recall.conf).toBeNull();
    expect(suggestFrom(classScores([detail([{ labelId: A, geometry: box(0, 0, 5, 5), confidence: 0.9 }], [])], names), 0.25, 7, { recallTarget: 0.9, ngNames: null })).toBeNull();
  });

  it('counts a classifier\'s top class under the threshold as no prediction (a miss)', () => {
    const image = (labelId: number, confidence: number, truthLabelId: number): TestImageDetail => ({
      predictions: [],
      groundTruth: [],
      classification: { labelId, confidence, scores: {}, truthLabelId, correct: labelId === truthLabelId } satisfies ClassResult,
    });
    // Right at 0.9 and 0.4, wrong (b for a) at 0.6. 0.9 → tp1 fp0 fn2: 2/4; 0.6 → 1,1,2: 2/5; 0.4 → 2,1,1: 4/6.
    const details = [image(A, 0.9, A), image(B, 0.6, A), image(A, 0.4, A)];
    const s = suggestFrom(classScores(details, names, 0.25), 0.25, 1, { recallTarget: 0.5, ngNames: null })!;
    expect(s.f1.overall).toBe(0.4);
    expect(s.f1.f1).toBeCloseTo(4 / 6, 10);
    expect(s.recall.conf).toBe(0.4);
    expect(confusion(details, 0.5, names, ['a', 'b'])).toEqual({ matrix: [[1, 0], [1, 0]], wrong: 1 });
    expect(confusion(details, 0.25, names, ['a', 'b'])).toEqual({ matrix: [[2, 0], [1, 0]], wrong: 1 });
  });
});

describe('test analysis of handmade matches', () => {
  // Truth: a at (0,0), b at (20,20), a at (40,40), a at (90,90). Predictions: a on the first a (found), a on the b
  // (wrong class), a covering 40% of the second a (poor localisation), a on nothing (false positive).
  const image = detail(
    [
      { labelId: A, geometry: box(0, 0, 10, 10), confidence: 0.9 },
      { labelId: A, geometry: box(20, 20, 30, 30), confidence: 0.8 },
      { labelId: A, geometry: box(40, 40, 44, 50), confidence: 0.7 },
      { labelId: A, geometry: box(70, 70, 80, 80), confidence: 0.6 },
    ],
    [box(0, 0, 10, 10), box(20, 20, 30, 30), box(40, 40, 50, 50), box(90, 90, 95, 95)].map((geometry, i) => ({ labelId: i === 1 ? B : A, geometry })),
  );

  it('sorts the errors by kind at the confidence asked', () => {
    expect(detectionErrors([image], 0.5, 'detect')).toEqual({ wrongClass: 1, poorLocalisation: 1, falsePositive: 1, missed: 1 });
    // Above 0.75 the poorly placed box is gone: its object is missed.
    expect(detectionErrors([image], 0.75, 'detect')).toEqual({ wrongClass: 1, poorLocalisation: 0, falsePositive: 0, missed: 2 });
  });

  it('gives per-class figures, curves and histograms at the confidence asked', () => {
    const a = analyse({ task: 'detect', details: [image], names, conf: 0.75, minConf: 0.5, summary: null, stored: null, testRunId: 3 });
    // At 0.75, a: tp 1, fp 1 (the box on b), 3 objects; b: nothing found of 1.
    expect(a.perClass).toEqual([
      { name: 'a', precision: 0.5, recall: 1 / 3, f1: 2 / 5, support: 3 },
      { name: 'b', precision: 0, recall: 0, f1: 0, support: 1 },
    ]);
    expect(a.prCurves[0]).toEqual({ name: 'a', points: [[1 / 3, 1], [1 / 3, 0.5], [1 / 3, 1 / 3], [1 / 3, 0.25]] });
    expect(a.f1Curve[0]).toEqual([0.5, 2 / 8]);
    expect(a.f1Curve.at(-1)).toEqual([1, 0]);
    expect(a.f1Curve).toHaveLength(51);
    expect(a.confidence.edges).toHaveLength(21);
    expect([a.confidence.tp.reduce((x, y) => x + y), a.confidence.fp.reduce((x, y) => x + y)]).toEqual([1, 3]);
    // 0.9 falls in the bin [0.9, 0.925).
    expect(a.confidence.tp[16]).toBe(1);
    expect(a.suggested).toMatchObject({ f1: { overall: 0.9, f1: 2 / 5 }, testRunId: 3 });
  });
});

describe('test analysis of a real run', () => {
  let t: TestApp;
  let token: string;
  let s: Awaited<ReturnType<typeof trainedStudio>>;
  let run: TestRunData;
  const url = (testId: number, q = '') => `/api/models/${s.model.id}/tests/${testId}/analysis${q}`;

  async function finished(id: number): Promise<TestRunData> {
    for (let i = 0; ; i++) {
      const r = await call<TestRunData>(t.app, 'GET', `/api/models/${s.model.id}/tests/${id}`, undefined, { token });
      if (!['queued', 'preparing', 'testing'].includes(r.data.status)) return r.data;
      if (i > 300) throw new Error(`test ${id} stuck`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  beforeAll(async () => {
    t = await startApp();
    ({ token } = await downloader(t.app));
    s = await trainedStudio(t.app, token);
    const started = await call<TestRunData>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { source: 'images', imageIds: s.images.slice(8), settings: { conf: 0.001 } }, { token });
    expect(started.code, started.message).toBe(0);
    run = await finished(started.data.id);
    expect(run.status, run.error ?? '').toBe('succeeded');
  }, 80_000);
  afterAll(() => t?.close());

  it('answers the run\'s figures, computed here again from its images', async () => {
    const imgs = (await call<TestImagesData>(t.app, 'GET', `/api/models/${s.model.id}/tests/${run.id}/images?pageSize=100`, undefined, { token })).data.items;
    const preds = imgs.flatMap((i) => i.predictions).map((p) => ({ matched: p.matched, confidence: p.confidence! }));
    const conf = [...preds.map((p) => p.confidence)].sort((x, y) => y - x)[Math.min(2, preds.length - 1)]!;
    const r = await call<TestAnalysisData>(t.app, 'GET', url(run.id, `?conf=${conf}`), undefined, { token });
    expect(r.code, r.message).toBe(0);
    const tp = preds.filter((p) => p.matched && p.confidence >= conf).length;
    const fp = preds.filter((p) => !p.matched && p.confidence >= conf).length;
    expect(r.data).toMatchObject({ task: 'detect', conf, minConf: 0.001, confusion: null });
    expect(r.data.perClass).toEqual([{ name: 'scratch', precision: tp / (tp + fp), recall: tp / 4, f1: (2 * tp) / (tp + fp + 4), support: 4 }]);
    // One class: every false positive is near nothing or poorly placed; a poorly placed one explains its object.
    const errors = r.data.errors;
    expect(errors.wrongClass).toBe(0);
    expect(errors.falsePositive! + errors.poorLocalisation!).toBe(fp);
    expect(errors.missed).toBeLessThanOrEqual(4 - tp);
    expect(errors.missed! + errors.poorLocalisation!).toBeGreaterThanOrEqual(4 - tp);
    const own = (await call<TestAnalysisData>(t.app, 'GET', url(run.id), undefined, { token })).data;
    expect(own.conf).toBe(0.001);
    expect(own.f1Curve[0]![1]).toBeCloseTo((2 * run.tp) / (2 * run.tp + run.fp + run.fn), 10);
    expect(own.confidence.tp.reduce((x, y) => x + y) + own.confidence.fp.reduce((x, y) => x + y)).toBe(preds.length);
    expect(own.suggested!.testRunId).toBe(run.id);
  });

  it('refuses a confidence under the run\'s (400) and another user\'s run (404)', async () => {
    const low = await call(t.app, 'GET', url(run.id, '?conf=0.0001'), undefined, { token });
    expect([low.status, low.code]).toEqual([400, 20001]);
    const other = await call(t.app, 'GET', url(run.id), undefined, { token: await userToken(t.app) });
    expect(other.status).toBe(404);
    const none = await call(t.app, 'GET', url(run.id + 1000), undefined, { token });
    expect(none.status).toBe(404);
  });

  it('stores a suggestion: versions show it, a test without conf uses it, the export ships it', async () => {
    const deps = t.app.deps;
    const suggested = (await suggestConfidences(deps, run.id, { recallTarget: 0.5, ngLabelIds: [s.labels.scratch!] })) as SuggestedConfidences;
    expect(suggested.recall.classes).toEqual(['scratch']);
    const analysis = (await call<TestAnalysisData>(t.app, 'GET', url(run.id), undefined, { token })).data;
    // The best of the curve's steps cannot beat the best over every predicted confidence.
    expect(Math.max(...analysis.f1Curve.map(([, f]) => f))).toBeLessThanOrEqual(suggested.f1.f1 + 1e-12);
    // A higher suggestion than the run's conf, so that its use shows.
    const stored = { ...suggested, f1: { ...suggested.f1, overall: 0.3125 } };
    await storeSuggested(deps, s.trainingId, stored);
    const versions = (await call<VersionListData>(t.app, 'GET', `/api/models/${s.model.id}/versions`, undefined, { token })).data;
    expect(versions.items.find((v) => v.id === s.trainingId)!.suggested).toEqual(stored);
    expect((await call<TestAnalysisData>(t.app, 'GET', url(run.id), undefined, { token })).data.suggested).toEqual(stored);

    const pack = await call<PackStatusData>(t.app, 'POST', '/api/train/modelPack', { modelId: s.model.id, kind: 'model', inputW: 64, inputH: 64, maxDet: 100, rotated: false }, { token });
    expect(pack.code, pack.message).toBe(0);
    const done = await waitForPack(t.app, token, s.model.id, 'model');
    expect(done.packStatus, done.error ?? '').toBe('success');
    const onnx = await t.app.inject({ method: 'GET', url: `/api/train/download/${done.id}/${done.inputW}/${done.inputH}`, headers: { 'x-token': token } });
    // The latest succeeded test ran at 0.001: the suggestion wins. The model's metadata (engine export.py) names the confidence it filters at.
    expect(onnx.rawPayload.includes('"conf": 0.3125')).toBe(true);
    const again = await call<TestRunData>(t.app, 'POST', `/api/models/${s.model.id}/tests`, { source: 'images', imageIds: s.images.slice(8, 10) }, { token });
    expect(again.data.settings.conf).toBe(0.3125);
    await finished(again.data.id);
  }, 60_000);

  it('runs a test inside another job (the agent\'s), leaving that job to its owner', async () => {
    const deps = t.app.deps;
    const owner = await deps.db.selectFrom('models').select('owner_id').where('id', '=', s.model.id).executeTakeFirstOrThrow();
    const model = (await deps.models.find(owner.owner_id, s.model.id))!;
    const training = (await deps.trainings.byId(s.trainingId))!;
    const jobId = await deps.jobs.insert(deps.db, { kind: 'agent', model_id: model.id, owner_id: owner.owner_id, priority: 0, state: 'succeeded', payload: '{}', created_at: deps.now() });
    const settings = { conf: 0.05, iou: 0.6, half: false, agnostic: false, tta: 'off' as const };
    const id = await insertTestRun(deps, model, training, { imageIds: s.images.slice(8), settings }, jobId);
    expect(await finishedOrQueued(id)).toMatchObject({ status: 'queued', settings: { conf: 0.05 }, source: 'images', imageCount: 4 });
    await expect(insertTestRun(deps, model, training, { imageIds: s.images.slice(8), settings }, jobId)).rejects.toMatchObject({ key: 'ongoingTesting' });
    const stop = await call(t.app, 'POST', `/api/models/${s.model.id}/tests/${id}/stop`, undefined, { token });
    expect(stop.status).toBe(409);
    const job = (await deps.jobs.find(jobId))!;
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-agent-test-'));
    const ctx = { workDir, attempt: 1, onStart: () => {}, cancelled: () => false, shuttingDown: () => false, timedOut: () => false, lost: () => false };
    await runTestJob(deps, { ...job, payload: JSON.stringify({ testRunId: id }) }, ctx);
    fs.rmSync(workDir, { recursive: true, force: true });
    expect(await finished(id)).toMatchObject({ status: 'succeeded', done: 4 });
    expect(await deps.jobs.find(jobId)).toMatchObject({ state: 'succeeded', finished_at: null, progress: job.progress });
  }, 30_000);

  async function finishedOrQueued(id: number): Promise<TestRunData> {
    return (await call<TestRunData>(t.app, 'GET', `/api/models/${s.model.id}/tests/${id}`, undefined, { token })).data;
  }
});
