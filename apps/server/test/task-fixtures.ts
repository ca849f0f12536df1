import { expect } from 'vitest';
import sharp from 'sharp';
import type { FastifyInstance } from 'fastify';
import type { LabelData, ModelData, ModelType, TestImagesData, TestRunData, UploadData } from '@loupe/contracts';
import { call } from './helper.js';
import { newModel, send, uploadUrl } from './gallery-fixtures.js';

/** Shapes of the classification and segmentation tests: a bright disc or a grey square on noisy dark ground. */
export const SHAPES = ['disc', 'square'] as const;
export type Shape = (typeof SHAPES)[number];

export interface Drawn {
  shape: Shape;
  /** The outline in image pixels: a 24-gon for the disc, 4 corners for the square. */
  polygon: [number, number][];
}

const SIZE = 64;

/** Where image i's shape sits: discs and squares alternate, sizes 20 to 30 px, anywhere inside. */
export function drawnOf(i: number): Drawn {
  const shape = SHAPES[i % 2]!;
  const s = 20 + ((i * 7) % 11);
  const cx = s / 2 + 3 + ((i * 13) % (SIZE - s - 6));
  const cy = s / 2 + 3 + ((i * 17) % (SIZE - s - 6));
  const polygon: [number, number][] =
    shape === 'disc'
      ? Array.from({ length: 24 }, (_, k) => [cx + (s / 2) * Math.cos((k * Math.PI) / 12), cy + (s / 2) * Math.sin((k * Math.PI) / 12)] as [number, number])
      : [
          [cx - s / 2, cy - s / 2],
          [cx + s / 2, cy - s / 2],
          [cx + s / 2, cy + s / 2],
          [cx - s / 2, cy + s / 2],
        ];
  return { shape, polygon: polygon.map(([x, y]) => [Math.round(x * 100) / 100, Math.round(y * 100) / 100]) };
}

/** Even-odd test of a pixel centre against a polygon: how the engine rasterizes labels. */
function inside(poly: [number, number][], x: number, y: number): boolean {
  let hit = false;
  for (let k = 0, j = poly.length - 1; k < poly.length; j = k++) {
    const [xk, yk] = poly[k]!;
    const [xj, yj] = poly[j]!;
    if (yk > y !== yj > y && x < ((xj - xk) * (y - yk)) / (yj - yk) + xk) hit = !hit;
  }
  return hit;
}

/** A 64×64 PNG of drawnOf(i): its pixels are exactly the polygon's (centres inside). */
export function shapeImage(i: number): Promise<Buffer> {
  const { shape, polygon } = drawnOf(i);
  const px = Buffer.alloc(SIZE * SIZE * 3);
  let s = (i + 1) * 2654435761 + 7;
  for (let p = 0; p < px.length; p++) {
    s = (s * 1103515245 + 12345) >>> 0;
    px[p] = 40 + ((s >>> 16) % 15);
  }
  const colour = shape === 'disc' ? [240, 240, 240] : [130, 130, 200];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) if (inside(polygon, x + 0.5, y + 0.5)) px.set(colour, (y * SIZE + x) * 3);
  }
  return sharp(px, { raw: { width: SIZE, height: SIZE, channels: 3 } }).png().toBuffer();
}

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
