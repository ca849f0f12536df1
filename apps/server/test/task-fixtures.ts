import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Geometry, LabelData, ModelData, ModelType, TestImagesData, TestRunData, TrainingData, UploadData } from '@loupe/contracts';
import { call } from './helper.js';
import { newModel, send, uploadUrl } from './gallery-fixtures.js';
import { save } from './labeling-fixtures.js';
import { SAME_ON_EVERY_HOST, waitFor } from './training-fixtures.js';
import { barImage, barOf, SHAPES, shapeImage, type Shape } from './shape-images.js';

export { barImage, barOf, drawnOf, shapeImage, SHAPES, type Drawn, type Shape } from './shape-images.js';

/** A model of `type` with `count` shape images (upload order = i) and the labels disc and square. */
export async function shapesModel(app: FastifyInstance, token: string, type: ModelType, count: number): Promise<{ model: ModelData; images: number[]; labels: Record<Shape, number> }> {
  const model = await newModel(app, token, type);
  const files = await Promise.all(Array.from({ length: count }, async (_, i) => ({ filename: `shape_${i}.png`, data: await shapeImage(i) })));
  const up = await send<UploadData>(app, token, uploadUrl(model.id), files);
  expect(up.data.accepted, up.message).toBe(count);
  const labels = {} as Record<Shape, number>;
  for (const name of SHAPES) labels[name] = (await call<LabelData>(app, 'POST', `/api/models/${model.id}/labels`, { name }, { token })).data.id;
  return { model, images: up.data.results.map((r) => r.imageId!), labels };
}

/** Puts images into splits: `train`, `valid` and `test` are index ranges [from, to) of `images`. */
export async function splitImages(app: FastifyInstance, token: string, modelId: number, images: number[], ranges: Partial<Record<'train' | 'valid' | 'test', [number, number]>>): Promise<void> {
  for (const [split, [from, to]] of Object.entries(ranges)) {
    const r = await call(app, 'POST', `/api/models/${modelId}/images/split`, { ids: images.slice(from, to), split }, { token });
    expect(r.code, r.message).toBe(0);
  }
}

const ACTIVE = ['queued', 'preparing', 'testing', 'training'];

/** Starts a test run of the model's latest training and waits for it to end. */
export async function testRun(app: FastifyInstance, token: string, modelId: number, body: Record<string, unknown> = {}): Promise<TestRunData> {
  const r = await call<TestRunData>(app, 'POST', `/api/models/${modelId}/tests`, body, { token });
  expect(r.code, r.message).toBe(0);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = await call<TestRunData>(app, 'GET', `/api/models/${modelId}/tests/${r.data.id}`, undefined, { token });
    if (!ACTIVE.includes(now.data.status)) return now.data;
    if (Date.now() > deadline) throw new Error(`test ${r.data.id} stuck in ${now.data.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export async function runImages(app: FastifyInstance, token: string, modelId: number, testId: number, query = ''): Promise<TestImagesData> {
  const r = await call<TestImagesData>(app, 'GET', `/api/models/${modelId}/tests/${testId}/images${query}`, undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

/**
 * A MEASURE model of 24 bars labeled as rotated boxes (split 16/4/4) whose obb training has succeeded: the
 * measurement tests' rotated-box model.
 */
export async function trainedBarsModel(app: FastifyInstance, token: string): Promise<{ model: ModelData; images: number[]; bar: number; training: TrainingData }> {
  const model = await newModel(app, token, 'MEASURE');
  const files = await Promise.all(Array.from({ length: 24 }, async (_, i) => ({ filename: `bar_${i}.png`, data: await barImage(i) })));
  const up = await send<UploadData>(app, token, uploadUrl(model.id), files);
  const images = up.data.results.map((r) => r.imageId!);
  const bar = (await call<LabelData>(app, 'POST', `/api/models/${model.id}/labels`, { name: 'bar' }, { token })).data.id;
  for (const [i, id] of images.entries()) {
    const g: Geometry = { kind: 'rbox', ...barOf(i) };
    expect((await save(app, token, { model, images, labels: { bar } }, id, 0, [{ labelId: bar, geometry: g }])).code).toBe(0);
  }
  await splitImages(app, token, model.id, images, { train: [0, 16], valid: [16, 20], test: [20, 24] });
  const r = await call<TrainingData>(app, 'POST', `/api/models/${model.id}/trainings`, { params: { model: 'p', imgsz: 64, epochs: 12, batch: 4, mosaic: 0, workers: 0, warmup_epochs: 0, seed: 3, optimizer: 'AdamW', lr0: 0.01, val: false, ...SAME_ON_EVERY_HOST } }, { token });
  expect(r.code, r.message).toBe(0);
  expect(r.data).toMatchObject({ task: 'obb', rotated: true });
  const training = await waitFor(app, token, model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 90_000);
  expect(training.status, training.error ?? '').toBe('succeeded');
  return { model, images, bar, training };
}
