import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type AutoSplitData, type ImageFilter, type ImageListData, type LabelData, type ModelData, type UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, folderUrl, newModel, send, uploadUrl, userToken } from './gallery-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const list = (modelId: number, q = '') => call<ImageListData>(t.app, 'GET', `/api/models/${modelId}/images${q}`, undefined, { token });
const post = <T>(url: string, body: Record<string, unknown>, lang?: string) => call<T>(t.app, 'POST', url, body, { token, ...(lang ? { lang } : {}) });

async function gallery(n: number, type: 'DETECTION' | 'classification' = 'DETECTION') {
  const m = await newModel(t.app, token, type);
  const files = await Promise.all(Array.from({ length: n }, async (_, i) => ({ filename: `img_${String(i).padStart(2, '0')}.png`, data: await draw('png', 40, 40, 1000 * m.id + i) })));
  const r = await send<UploadData>(t.app, token, uploadUrl(m.id), files);
  return { m, ids: r.data.results.map((x) => x.imageId!) };
}

describe('gallery list, star, split, delete (SPEC §3 image)', () => {
  it('answers every filter, the split filter, name search and both paging styles', async () => {
    const { m, ids } = await gallery(12);
    const [a, b, c, d, e, f] = ids as [number, number, number, number, number, number];
    await post(`/api/models/${m.id}/images/star`, { ids: [a, b], starred: true });
    await post(`/api/models/${m.id}/images/split`, { ids: [c, d, e], split: 'valid' });
    // Labeled and test columns are what the annotation import and later test runs fill; set them directly here.
    const db = t.app.deps.db;
    await db.updateTable('images').set({ labeled: 1, annotation_count: 1 }).where('id', 'in', [a, c]).execute();
    await db.updateTable('images').set({ test_state: 'tested', test_hits: 1, test_result_count: 3 }).where('id', 'in', [d]).execute();
    await db.updateTable('images').set({ test_state: 'tested', test_hits: 0, test_result_count: 0 }).where('id', 'in', [e, f]).execute();
    await db.updateTable('images').set({ test_state: 'unprocessed' }).where('id', '=', b).execute();
    const expected: Record<ImageFilter, number[]> = {
      all: ids,
      labeled: [a, c],
      unlabeled: ids.filter((i) => i !== a && i !== c),
      starred: [a, b],
      unstarred: ids.filter((i) => i !== a && i !== b),
      tested: [d, e, f],
      untested: ids.filter((i) => ![b, d, e, f].includes(i)),
      unprocessed: [b],
      testedWithResults: [d],
      testedNoResults: [e, f],
    };
    for (const [filter, want] of Object.entries(expected)) {
      const r = await list(m.id, `?filter=${filter}&pageSize=100`);
      expect(r.data.items.map((i) => i.id).sort(), filter).toEqual([...want].sort());
      expect(r.data.total, filter).toBe(want.length);
    }
    expect((await list(m.id, '?split=valid')).data.items.map((i) => i.id).sort()).toEqual([c, d, e].sort());
    expect((await list(m.id, '?split=valid&filter=tested')).data.total).toBe(2);
    expect((await list(m.id, '?split=none')).data.total).toBe(9);
    expect((await list(m.id, '?name=IMG_0')).data.total).toBe(10);
    expect((await list(m.id, '?name=_1')).data.items.map((i) => i.name).sort()).toEqual(['img_10.png', 'img_11.png']);
    const named = await list(m.id, '?name=img_&pageSize=5&page=2');
    expect(named.data).toMatchObject({ total: 12 });
    expect(named.data.items.map((i) => i.id)).toEqual([...ids].sort((x, y) => y - x).slice(5, 10));
    const namedAfter = await list(m.id, `?name=img_&pageSize=5&after=${named.data.items[4]!.id}`);
    expect(namedAfter.data.items.map((i) => i.id)).toEqual([...ids].sort((x, y) => y - x).slice(10));
    expect(namedAfter.data.nextAfter).toBeNull();
    expect((await list(m.id, '?name=nothing-like-this')).data).toEqual({ items: [], total: 0, nextAfter: null });
    // keyset paging walks every image once, newest first
    const seen: number[] = [];
    let after: number | null = null;
    do {
      const r: Awaited<ReturnType<typeof list>> = await list(m.id, `?pageSize=5${after ? `&after=${after}` : ''}`);
      seen.push(...r.data.items.map((i) => i.id));
      after = r.data.nextAfter;
    } while (after);
    expect(seen).toEqual([...ids].sort((x, y) => y - x));
    expect((await list(m.id, '?pageSize=5&page=3')).data.items.map((i) => i.id)).toEqual(seen.slice(10));
    expect((await list(m.id, '?filter=bogus')).code).toBe(Errors.validation.code);
  });

  it('takes uploads larger than the JSON body limit (multipart is streamed)', async () => {
    const m = await newModel(t.app, token);
    const { default: sharp } = await import('sharp');
    const { pixels } = await import('./gallery-fixtures.js');
    const big = await sharp(pixels(1200, 900, 77), { raw: { width: 1200, height: 900, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    expect(big.length).toBeGreaterThan(3 * 1024 * 1024);
    const r = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'big.png', data: big }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data.accepted).toBe(1);
  });

  it('stars, unstars, splits and deletes in bulk, only within the caller\'s model', async () => {
    const { m, ids } = await gallery(4);
    const other = await gallery(1);
    const star = await post<{ changed: number }>(`/api/models/${m.id}/images/star`, { ids: [...ids, other.ids[0]], starred: true });
    expect(star.data.changed).toBe(4);
    await post(`/api/models/${m.id}/images/star`, { ids: [ids[0]], starred: false });
    expect((await list(m.id, '?filter=starred')).data.total).toBe(3);
    expect((await post(`/api/models/${m.id}/images/split`, { ids, split: 'sideways' })).code).toBe(Errors.validation.code);
    const del = await post<{ changed: number }>(`/api/models/${m.id}/images/delete`, { ids: [ids[0], ids[1], other.ids[0]] });
    expect(del.data.changed).toBe(2);
    expect((await list(m.id)).data.total).toBe(2);
    expect((await list(other.m.id)).data.total).toBe(1);
    expect((await t.app.inject({ url: `/api/models/${m.id}/images/${ids[0]}/thumbnail`, headers: { 'x-token': token } })).statusCode).toBe(404);
  });
});

describe('labels (SPEC §5 labels)', () => {
  it('creates, renames, recolours and deletes; names unique and not empty; maximum count', async () => {
    const small = await startApp({ gallery: { ...t.config.gallery, labelMax: 3 } });
    try {
      const tk = await userToken(small.app);
      const m = await newModel(small.app, tk);
      const url = `/api/models/${m.id}/labels`;
      const mk = (name: string, lang?: string) => call<LabelData>(small.app, 'POST', url, { name }, { token: tk, ...(lang ? { lang } : {}) });
      const scratch = await mk('scratch');
      expect(scratch.data).toMatchObject({ name: 'scratch', imageCount: 0 });
      expect(scratch.data.color).toMatch(/^#[0-9a-f]{6}$/);
      expect(await mk(' Scratch ', 'zh')).toMatchObject({ status: 409, code: Errors.labelNameExists.code, message: '标签名称已存在。' });
      expect((await mk('  ')).code).toBe(Errors.fieldRequired.code);
      expect((await mk('x'.repeat(101))).code).toBe(Errors.fieldTooLong.code);
      const dent = await mk('dent');
      await mk('crack');
      expect(await mk('rust')).toMatchObject({ code: Errors.labelCountExceeded.code, message: 'Label count exceeded: a model can have at most 3 labels.' });
      const put = (id: number, body: Record<string, unknown>) => call<LabelData>(small.app, 'PUT', `${url}/${id}`, body, { token: tk });
      expect((await put(dent.data.id, { name: 'SCRATCH' })).code).toBe(Errors.labelNameExists.code);
      expect((await put(dent.data.id, { name: 'Dent', color: '#00FF00' })).data).toMatchObject({ name: 'Dent', color: '#00ff00' });
      expect((await put(dent.data.id, { color: 'green' })).code).toBe(Errors.validation.code);
      const del = await small.app.inject({ method: 'DELETE', url: `${url}/${dent.data.id}`, headers: { 'x-token': tk } });
      expect(del.json()).toMatchObject({ code: 0 });
      expect((await mk('rust')).code).toBe(0);
      const all = await call<LabelData[]>(small.app, 'GET', url, undefined, { token: tk });
      expect(all.data.map((l) => l.name)).toEqual(['scratch', 'crack', 'rust']);
      const stranger = await userToken(small.app);
      expect((await call(small.app, 'GET', url, undefined, { token: stranger })).code).toBe(Errors.notFound.code);
    } finally {
      await small.close();
    }
  });
});

describe('classified folders and auto split (SPEC §5 folder upload, auto split)', () => {
  it('turns flat folders into labels, refusing nested or loose files with the reason', async () => {
    const m = await newModel(t.app, token, 'classification');
    const img = (i: number) => draw('png', 40, 40, 7000 + i);
    const r = await send<UploadData>(t.app, token, folderUrl(m.id), [
      { filename: 'ok/1.png', data: await img(1) },
      { filename: 'ok/2.png', data: await img(2) },
      { filename: 'ng/3.png', data: await img(3) },
      { filename: 'ng/deep/4.png', data: await img(4) },
      { filename: '5.png', data: await img(5) },
    ]);
    expect(r.code, r.message).toBe(0);
    const got = Object.fromEntries(r.data.results.map((x) => [x.name, x]));
    expect(got['ok/1.png']).toMatchObject({ status: 'accepted' });
    expect(got['ng/deep/4.png']).toMatchObject({ status: 'refused', code: Errors.folderUploadFailed.code, message: 'Folder upload failed: Nested folders are not allowed: "ng/deep/4.png".' });
    expect(got['5.png']).toMatchObject({ code: Errors.folderUploadFailed.code });
    const labels = await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token });
    expect(labels.data.map((l) => [l.name, l.imageCount])).toEqual([['ok', 2], ['ng', 1]]);
    expect(got['ok/1.png']?.labelId).toBe(labels.data[0]!.id);
    expect((await call<ModelData>(t.app, 'GET', `/api/models/${m.id}`, undefined, { token })).data.labeledImages).toBe(3);
    const det = await newModel(t.app, token, 'DETECTION');
    expect((await send(t.app, token, folderUrl(det.id), [{ filename: 'ok/1.png', data: await img(1) }])).code).toBe(Errors.wrongModelType.code);
  });

  it('takes unclassified images into a classification model', async () => {
    const m = await newModel(t.app, token, 'classification');
    const r = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'loose.png', data: await draw('png', 40, 40, 7100) }]);
    expect(r.data.results[0]).toMatchObject({ status: 'accepted' });
    expect(r.data.results[0]?.labelId).toBeUndefined();
    const img = (await list(m.id, '?filter=unlabeled')).data.items;
    expect(img.map((i) => [i.name, i.classLabelId, i.labeled])).toEqual([['loose.png', null, false]]);
  });

  it('reports a folder whose label cannot be created', async () => {
    const small = await startApp({ gallery: { ...t.config.gallery, labelMax: 1 } });
    try {
      const tk = await userToken(small.app);
      const m = await newModel(small.app, tk, 'classification');
      const r = await send<UploadData>(small.app, tk, folderUrl(m.id), [
        { filename: 'a/1.png', data: await draw('png', 40, 40, 1) },
        { filename: 'b/2.png', data: await draw('png', 40, 40, 2) },
      ]);
      expect(r.data.results[0]).toMatchObject({ status: 'accepted' });
      expect(r.data.results[1]).toMatchObject({
        status: 'refused',
        code: Errors.labelCreateFailed.code,
        message: 'The label "b" could not be created: Label count exceeded: a model can have at most 1 labels.',
      });
    } finally {
      await small.close();
    }
  });

  it('auto split needs the tick and sane ratios, and gives each label a train and a valid image', async () => {
    const m = await newModel(t.app, token, 'classification');
    const parts = await Promise.all(
      [...Array(6).keys()].map(async (i) => ({ filename: `${i < 4 ? 'ok' : 'ng'}/${i}.png`, data: await draw('png', 40, 40, 9000 + i) })),
    );
    await send(t.app, token, folderUrl(m.id), parts);
    const url = `/api/models/${m.id}/images/auto-split`;
    const ratios = { train: 0.7, valid: 0.2, test: 0.1 };
    expect(await post(url, { confirm: false, ratios }, 'de')).toMatchObject({ code: Errors.confirmationRequired.code, message: 'Bitte setzen Sie zuerst das Bestätigungshäkchen.' });
    expect((await post(url, { confirm: true, ratios: { train: 0.7, valid: 0.2, test: 0.2 } })).code).toBe(Errors.autoSplitRatios.code);
    expect((await post(url, { confirm: true, ratios: { train: 1.2, valid: -0.2, test: 0 } })).code).toBe(Errors.autoSplitRatios.code);
    expect((await post(url, { confirm: true, ratios: { train: 1, valid: 0, test: 0 } })).code).toBe(Errors.autoSplitRatios.code);
    const ok = await post<AutoSplitData>(url, { confirm: true, ratios: { train: 0.5, valid: 0.5, test: 0 } });
    expect(ok.code, ok.message).toBe(0);
    expect(ok.data.train + ok.data.valid + ok.data.test).toBe(6);
    const labels = (await call<LabelData[]>(t.app, 'GET', `/api/models/${m.id}/labels`, undefined, { token })).data;
    for (const l of labels) {
      for (const split of ['train', 'valid']) {
        const r = await list(m.id, `?labelId=${l.id}&split=${split}`);
        expect(r.data.total, `${l.name} ${split}`).toBeGreaterThanOrEqual(1);
      }
    }
    // a label with a single image cannot have both
    await send(t.app, token, folderUrl(m.id), [{ filename: 'rare/x.png', data: await draw('png', 40, 40, 9100) }]);
    expect(await post(url, { confirm: true, ratios })).toMatchObject({
      status: 409,
      code: Errors.autoSplitLabelTooFew.code,
      message: 'Cannot split automatically: label "rare" has only 1 image(s); each label needs at least one training and one validation image.',
    });
    const empty = await newModel(t.app, token, 'classification');
    expect((await post(`/api/models/${empty.id}/images/auto-split`, { confirm: true, ratios })).code).toBe(Errors.autoSplitNoImages.code);
  });

  it('auto split says when no image is left for the test share', async () => {
    const m = await newModel(t.app, token, 'classification');
    await send(t.app, token, folderUrl(m.id), [
      { filename: 'a/1.png', data: await draw('png', 40, 40, 9501) },
      { filename: 'a/2.png', data: await draw('png', 40, 40, 9502) },
    ]);
    const r = await post(`/api/models/${m.id}/images/auto-split`, { confirm: true, ratios: { train: 0.4, valid: 0.2, test: 0.4 } });
    expect(r.code).toBe(Errors.autoSplitTestTooFew.code);
  });
});
