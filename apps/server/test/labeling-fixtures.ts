import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ImageAnnotationsData, LabelData, ModelData, ModelType, NewAnnotation, UploadData } from '@loupe/contracts';
import { call, type Reply } from './helper.js';
import { draw, newModel, send, uploadUrl } from './gallery-fixtures.js';

export interface Studio {
  model: ModelData;
  /** Image ids in upload order. */
  images: number[];
  /** Label ids by name. */
  labels: Record<string, number>;
}

/** A model of `type` with `count` images of width×height and the named labels: what a labeling page opens on. */
export async function studio(
  app: FastifyInstance,
  token: string,
  opts: { type?: ModelType; size?: [number, number]; count?: number; labels?: string[] } = {},
): Promise<Studio> {
  const model = await newModel(app, token, opts.type ?? 'DETECTION');
  const [w, h] = opts.size ?? [200, 100];
  const files = await Promise.all(
    Array.from({ length: opts.count ?? 1 }, async (_, i) => ({ filename: `img_${i}.png`, data: await draw('png', w, h, 7000 * model.id + i) })),
  );
  const up = await send<UploadData>(app, token, uploadUrl(model.id), files);
  expect(up.data.accepted, up.message).toBe(files.length);
  const labels: Record<string, number> = {};
  for (const name of opts.labels ?? ['scratch', 'dent']) {
    const r = await call<LabelData>(app, 'POST', `/api/models/${model.id}/labels`, { name }, { token });
    labels[name] = r.data.id;
  }
  return { model, images: up.data.results.map((r) => r.imageId!), labels };
}

export const annotationsUrl = (modelId: number, imageId: number) => `/api/models/${modelId}/images/${imageId}/annotations`;

export function save(app: FastifyInstance, token: string, s: Studio, imageId: number, baseVersion: number, annotations: NewAnnotation[], lang?: string) {
  return call<ImageAnnotationsData>(app, 'PUT', annotationsUrl(s.model.id, imageId), { baseVersion, annotations }, { token, ...(lang ? { lang } : {}) });
}

export async function load(app: FastifyInstance, token: string, s: Studio, imageId: number): Promise<ImageAnnotationsData> {
  const r = await call<ImageAnnotationsData>(app, 'GET', annotationsUrl(s.model.id, imageId), undefined, { token });
  expect(r.code, r.message).toBe(0);
  return r.data;
}

export async function dataVersion(app: FastifyInstance, token: string, modelId: number): Promise<number> {
  return (await call<ModelData>(app, 'GET', `/api/models/${modelId}`, undefined, { token })).data.dataVersion;
}

/** Shapes without their ids, to compare what was saved with what is read back. */
export const shapes = (r: Reply<ImageAnnotationsData> | ImageAnnotationsData) =>
  ('data' in r ? r.data : r).annotations.map(({ labelId, geometry }) => ({ labelId, geometry }));
