import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageListData, ModelData, ModelListData, UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken } from './gallery-fixtures.js';

/**
 * What one list request costs the database (issue 30 item 10): the list APIs are the most called routes, and
 * each query, each column read and sent nowhere, shows in their throughput (bench/api.mjs).
 */
let t: TestApp;
let token: string;
let queries: string[] = [];
let gallery: ModelData;
beforeAll(async () => {
  t = await startApp({}, { onQuery: (sql) => queries.push(sql) });
  token = await userToken(t.app);
  gallery = await newModel(t.app, token, 'DETECTION', 'line 1');
  await newModel(t.app, token, 'classification', 'line 2');
  const files = await Promise.all([0, 1, 2].map(async (i) => ({ filename: `part_${i}.png`, data: await draw('png', 32, 32, 500 + i) })));
  expect((await send<UploadData>(t.app, token, uploadUrl(gallery.id), files)).data.accepted).toBe(3);
});
afterAll(() => t.close());

async function measured<T>(url: string) {
  queries = [];
  const r = await call<T>(t.app, 'GET', url, undefined, { token });
  expect(r.code).toBe(0);
  return { data: r.data, sql: queries };
}

describe('queries per list request', () => {
  it('model list: the session with its user, the count, the page; never the saved parameters', async () => {
    const { data, sql } = await measured<ModelListData>('/api/models');
    expect(data.total).toBe(2);
    expect(data.items.find((m) => m.id === gallery.id)).toMatchObject({ totalImages: 3, labeledImages: 0, labelCount: 0 });
    // Before: the session, then its user, then the count and the page (4), and every model column.
    expect(sql).toHaveLength(3);
    expect(sql.filter((q) => /"models"\.\*|"parameters"/.test(q))).toEqual([]);
  });

  it('gallery list: the session with its user, the model, the count, the page; never the blob keys', async () => {
    const { data, sql } = await measured<ImageListData>(`/api/models/${gallery.id}/images`);
    expect(data.total).toBe(3);
    expect(data.items.map((i) => i.name).sort()).toEqual(['part_0.png', 'part_1.png', 'part_2.png']);
    // Before: 5, and the page read every image column, the two 64-character blob keys among them.
    expect(sql).toHaveLength(4);
    const rowReads = sql.filter((q) => /from "images"/.test(q) && !/count\(/.test(q));
    expect(rowReads).toHaveLength(1);
    expect(rowReads.filter((q) => /select \*|"images"\.\*|"sha256"|"thumb_sha"/.test(q))).toEqual([]);
  });

  it('a signed-out or ended session still costs one query and is refused as before', async () => {
    queries = [];
    const r = await call(t.app, 'GET', '/api/models', undefined, { token: 'not-a-session' });
    expect(r.code).not.toBe(0);
    expect(queries).toHaveLength(1);
  });
});
