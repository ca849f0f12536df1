import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrainingEstimateData, TrainingListData } from '@loupe/contracts';
import { autoBatch, MIN_STEPS, planAdvice, planOf, verdictOf, type DataStats } from '../src/services/training/advice.js';
import { sizeScale, throughput, TABLE_IMG_PER_S_640 } from '../src/services/training/estimate.js';
import { call, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { save, studio } from './labeling-fixtures.js';
import { detail, labeledStudio, SAME_ON_EVERY_HOST, start, TINY, trainingsUrl, waitFor } from './training-fixtures.js';

const stats = (over: Partial<DataStats> = {}): DataStats => ({ trainImages: 48, validImages: 16, perClass: { short: 120, open: 90 }, boxRel: { p10: 0.02, p25: 0.03, p50: 0.05 }, ...over });
const succeeded = (summary: Record<string, unknown>, params: Record<string, unknown> = {}, s: DataStats | null = stats()) =>
  verdictOf({ task: 'detect', status: 'succeeded', summary, params, labelKinds: 2, stats: s });

describe('the plan and its warnings (issue 31, before starting)', () => {
  it('follows the engine batch rule: at most 8 below 300 images, a quarter of a small set, at least 2', () => {
    expect(autoBatch(60, 640)).toBe(8);
    expect(autoBatch(400, 640)).toBe(16);
    expect(autoBatch(400, 960)).toBe(8);
    expect(autoBatch(30, 640)).toBe(7);
    expect(autoBatch(5, 640)).toBe(2);
  });

  it('warns that 48 images x 3 epochs is too few steps and names the epochs that reach 400', () => {
    const plan = planOf({ epochs: 3, imgsz: 320 }, stats());
    expect(plan).toMatchObject({ trainImages: 48, batch: 8, stepsPerEpoch: 6, steps: 18 });
    const advice = planAdvice('detect', plan, stats());
    expect(advice).toContainEqual({ kind: 'epochs', steps: 18, minSteps: MIN_STEPS, epochs: 67 });
    // 67 epochs x 6 steps = 402: no warning left.
    expect(planAdvice('detect', planOf({ epochs: 67, imgsz: 640 }, stats()), stats()).filter((a) => a.kind === 'epochs')).toEqual([]);
    // Pretrained weights ask a quarter of the steps; an explicit batch changes the steps per epoch.
    expect(planAdvice('detect', planOf({ epochs: 20, pretrained: '7' }, stats()), stats()).some((a) => a.kind === 'epochs')).toBe(false);
    expect(planOf({ epochs: 10, batch: 16 }, stats())).toMatchObject({ batch: 16, stepsPerEpoch: 3, steps: 30 });
  });

  it('warns when a quarter of the boxes shrink below 8 px and names the image size that keeps them', () => {
    const advice = planAdvice('detect', planOf({ epochs: 100, imgsz: 160 }, stats()), stats());
    // 0.03 x 160 = 4.8 px; 8 / 0.03 = 267 -> 288 (a multiple of 32).
    expect(advice).toContainEqual({ kind: 'imgsz', imgsz: 160, boxPx: 4.8, target: 288 });
    expect(planAdvice('detect', planOf({ epochs: 100, imgsz: 288 }, stats()), stats()).some((a) => a.kind === 'imgsz')).toBe(false);
    // A classifier has no boxes; full-resolution tiles (crop) keep the boxes' pixels.
    expect(planAdvice('classify', planOf({ epochs: 100, imgsz: 160 }, stats()), stats()).some((a) => a.kind === 'imgsz')).toBe(false);
    expect(planAdvice('detect', planOf({ epochs: 100, imgsz: 640, crop: 320 }, stats({ boxRel: { p10: 0.001, p25: 0.002, p50: 0.01 } })), stats()).some((a) => a.kind === 'imgsz')).toBe(false);
  });

  it('names the classes with fewer than 30 training instances, fewest first', () => {
    const advice = planAdvice('detect', planOf({}, stats({ perClass: { a: 200, b: 12, c: 3 } })), stats({ perClass: { a: 200, b: 12, c: 3 } }));
    expect(advice.filter((a) => a.kind === 'labels')).toEqual([
      { kind: 'labels', label: 'c', count: 3, target: 30 },
      { kind: 'labels', label: 'b', count: 12, target: 30 },
    ]);
  });

  it('estimates from this server history of the same model, scaled by the image size; else a conservative table', () => {
    const history = [
      { model: 'p', imgsz: 640, imgPerS: 10 },
      { model: 'p', imgsz: 640, imgPerS: 14 },
      { model: 'p', imgsz: 320, imgPerS: 40 },
      { model: 'n', imgsz: 640, imgPerS: 3 },
    ];
    expect(throughput(history, 'p', 640)).toEqual({ imgPerS: 12, basis: 'history', basedOn: 2 });
    expect(throughput(history, 'p', 320)).toEqual({ imgPerS: 40, basis: 'history', basedOn: 1 });
    // No p run at 480: all three p runs, scaled to 480 by the image's cost (fixed part + area), median.
    expect(sizeScale(640, 320)).toBeCloseTo(2.684, 3);
    expect(throughput(history, 'p', 480)).toMatchObject({ basis: 'history', basedOn: 3 });
    expect(throughput(history, 'p', 480).imgPerS).toBeCloseTo(14 * sizeScale(640, 480), 5);
    expect(throughput(history, 'm', 640)).toEqual({ imgPerS: TABLE_IMG_PER_S_640.m, basis: 'table', basedOn: 0 });
    // A small image is cheaper, but not by its area: 64 px is not 100 times faster than 640 px.
    expect(throughput([], 'p', 64).imgPerS).toBeCloseTo(TABLE_IMG_PER_S_640.p! * 5.82, 1);
    expect(sizeScale(256, 128)).toBeCloseTo(1.51, 2);
  });
});

describe('the verdict (issue 31, after)', () => {
  it('calls mAP50 0.0 and 0.008 unusable, 0.2 weak, 0.6 usable', () => {
    const summary = { mAP50: 0, total_epochs: 3, stopped_by: 'epochs' };
    const v = succeeded(summary, { epochs: 3, imgsz: 320 });
    expect(v).toMatchObject({ level: 'unusable', metric: 'mAP50', value: 0 });
    // Advice from that training's own plan and data: 18 steps ran, 67 epochs reach 400; 320 px keeps 9.6 px boxes.
    expect(v!.advice).toContainEqual({ kind: 'epochs', steps: 18, minSteps: MIN_STEPS, epochs: 67 });
    expect(v!.advice.some((a) => a.kind === 'imgsz')).toBe(false);
    expect(v!.advice).toContainEqual({ kind: 'labels', label: 'open', count: 90, target: 180 });
    expect(succeeded({ mAP50: 0.008, total_epochs: 24 }, { epochs: 24, imgsz: 160 })!.advice).toContainEqual({ kind: 'imgsz', imgsz: 160, boxPx: 4.8, target: 288 });
    expect(succeeded({ mAP50: 0.2, total_epochs: 100 }, { epochs: 100 })).toMatchObject({ level: 'weak' });
    expect(succeeded({ mAP50: 0.6, total_epochs: 100 }, { epochs: 100 })).toMatchObject({ level: 'usable', advice: [] });
  });

  it('after enough steps still asks for twice the epochs; a stop by time or patience says so', () => {
    const v = succeeded({ mAP50: 0.01, total_epochs: 100, stopped_by: 'epochs' }, { epochs: 100 });
    expect(v!.advice[0]).toEqual({ kind: 'epochs', steps: 600, minSteps: 1200, epochs: 200 });
    expect(succeeded({ mAP50: 0.01, total_epochs: 40, stopped_by: 'time' }, { epochs: 100, time: 1 })!.advice).toContainEqual({ kind: 'time', epoch: 40, epochs: 100 });
    expect(succeeded({ mAP50: 0.01, total_epochs: 60, stopped_by: 'patience' }, { epochs: 100 })!.advice).toContainEqual({ kind: 'patience', epoch: 60, epochs: 100 });
  });

  it('judges each task by its own metric; none unless succeeded with a summary', () => {
    const v = (task: 'classify' | 'segment' | 'ocr', summary: Record<string, unknown>, labelKinds = 2) =>
      verdictOf({ task, status: 'succeeded', summary, params: {}, labelKinds, stats: null })?.level;
    // Two classes: guessing is 0.5; 0.52 is hardly better, 0.6 weak, 0.9 usable. Ten classes: 0.2 is weak.
    expect([v('classify', { top1: 0.52 }), v('classify', { top1: 0.6 }), v('classify', { top1: 0.9 }), v('classify', { top1: 0.2 }, 10)]).toEqual(['unusable', 'weak', 'usable', 'weak']);
    expect(v('classify', { multi_label: true, accuracy: 0.9, f1: 0.01 })).toBe('unusable');
    expect([v('segment', { mIoU: 0.01 }), v('segment', { mIoU: 0.7 })]).toEqual(['unusable', 'usable']);
    // OCR: a text detector that finds nothing reads nothing.
    expect([v('ocr', { char_acc: 0.9, mAP50: 0.01 }), v('ocr', { char_acc: 0.9, mAP50: 0.8 })]).toEqual(['unusable', 'usable']);
    expect(verdictOf({ task: 'detect', status: 'failed', summary: { mAP50: 0 }, params: {}, labelKinds: 1, stats: null })).toBeNull();
    expect(verdictOf({ task: 'detect', status: 'succeeded', summary: null, params: {}, labelKinds: 1, stats: null })).toBeNull();
  });
});

describe('the estimate endpoint and the stored verdict, on the real engine', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startApp();
    token = await userToken(t.app);
  });
  afterAll(() => t.close());
  const estimate = (modelId: number, params: Record<string, unknown>, tok = token) =>
    call<TrainingEstimateData>(t.app, 'POST', `${trainingsUrl(modelId)}/estimate`, { params }, { token: tok });

  it('warns about small boxes at a small image size, and about too few steps, with the values that are enough', async () => {
    // 640 px images with 10 px boxes: at 64 px they are 1 px.
    const s = await studio(t.app, token, { count: 6, size: [640, 480], labels: ['dot'] });
    for (const id of s.images) {
      const r = await save(t.app, token, s, id, 0, [{ labelId: s.labels.dot!, geometry: { kind: 'box', x1: 100, y1: 100, x2: 110, y2: 112 } }]);
      expect(r.code, r.message).toBe(0);
    }
    await call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids: s.images.slice(0, 4), split: 'train' }, { token });
    await call(t.app, 'POST', `/api/models/${s.model.id}/images/split`, { ids: s.images.slice(4), split: 'valid' }, { token });
    const r = await estimate(s.model.id, { model: 'p', imgsz: 64, epochs: 1 });
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ task: 'detect', trainImages: 4, validImages: 2, batch: 2, stepsPerEpoch: 2, steps: 2, imgsz: 64, basis: 'table' });
    expect(r.data.seconds).toBeGreaterThan(0);
    expect(r.data.warnings).toEqual([
      { kind: 'epochs', steps: 2, minSteps: MIN_STEPS, epochs: 200 },
      { kind: 'imgsz', imgsz: 64, boxPx: 1, target: 512 },
      { kind: 'labels', label: 'dot', count: 4, target: 30 },
    ]);
    // Another user's model is not found, like a missing one; bad parameters are refused as a start refuses them.
    const other = await userToken(t.app);
    expect((await estimate(s.model.id, {}, other)).status).toBe(404);
    expect((await estimate(999999, {})).status).toBe(404);
    expect((await estimate(s.model.id, { imgsz: 100 })).status).toBe(400);
    // Nothing was written.
    expect((await call<TrainingListData>(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token })).data.total).toBe(0);
  });

  it('a 1-epoch training that learned nothing is unusable in the list and the detail alike; the next estimate uses its speed', async () => {
    const s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id, { ...TINY, ...SAME_ON_EVERY_HOST, seed: 1 });
    expect(r.code, r.message).toBe(0);
    const done = await waitFor(t.app, token, s.model.id, r.data.id, (d) => !['queued', 'preparing', 'training'].includes(d.status), 90_000);
    expect(done.status, done.error ?? '').toBe('succeeded');
    expect(done.verdict).toMatchObject({ level: 'unusable', metric: 'mAP50' });
    // 8 training images at batch 4: 2 steps ran, 200 epochs reach 400.
    expect(done.verdict!.advice).toContainEqual({ kind: 'epochs', steps: 2, minSteps: MIN_STEPS, epochs: 200 });
    expect(done.verdict!.advice).toContainEqual({ kind: 'labels', label: 'scratch', count: 8, target: 30 });
    const list = await call<TrainingListData>(t.app, 'GET', trainingsUrl(s.model.id), undefined, { token });
    expect(list.data.items[0]!.verdict).toEqual((await detail(t.app, token, s.model.id, r.data.id)).verdict);
    const e = await estimate(s.model.id, { ...TINY });
    expect(e.data).toMatchObject({ basis: 'history', model: 'p', imgsz: 64 });
    expect(e.data.basedOn).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
