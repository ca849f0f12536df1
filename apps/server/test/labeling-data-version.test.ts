import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type ImageClassData, type LabelData, type ModelData, type NewAnnotation, type UploadData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, folderUrl, newModel, send, userToken, zip, zipUrl } from './gallery-fixtures.js';
import { dataVersion, load, save, studio } from './labeling-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

const version = (modelId: number) => dataVersion(t.app, token, modelId);
const del = (url: string) => t.app.inject({ method: 'DELETE', url, headers: { 'x-token': token } });
const box = (labelId: number, x = 0): NewAnnotation => ({ labelId, geometry: { kind: 'box', x1: x, y1: 0, x2: x + 20, y2: 20 } });

describe('dataVersion (SPEC §5: changing labels or annotations requires retraining)', () => {
  it('is raised once by each accepted save, and not by refused or unchanged ones', async () => {
    const s = await studio(t.app, token, { count: 2 });
    const [a, b] = s.images as [number, number];
    expect(s.model.dataVersion).toBe(0);
    await save(t.app, token, s, a, 0, [box(s.labels.scratch!)]);
    expect(await version(s.model.id)).toBe(1);
    await save(t.app, token, s, b, 0, [box(s.labels.dent!), box(s.labels.dent!, 50)]);
    expect(await version(s.model.id)).toBe(2);
    await save(t.app, token, s, a, 0, []); // stale: refused
    await save(t.app, token, s, a, 1, [{ labelId: s.labels.scratch!, geometry: { kind: 'box', x1: 0, y1: 0, x2: 1, y2: 1 } }]); // too small
    await save(t.app, token, s, a, 1, [box(s.labels.scratch!)]); // unchanged
    expect(await version(s.model.id)).toBe(2);
    // the list shows it as well
    const listed = await call<{ items: ModelData[] }>(t.app, 'GET', '/api/models?pageSize=100', undefined, { token });
    expect(listed.data.items.find((m) => m.id === s.model.id)!.dataVersion).toBe(2);
  });

  it('is raised by an annotation ZIP import', async () => {
    const s = await studio(t.app, token);
    const coco = {
      images: [{ id: 1, file_name: 'img_0.png' }],
      categories: [{ id: 1, name: 'scratch' }],
      annotations: [{ image_id: 1, category_id: 1, bbox: [1, 1, 20, 20] }],
    };
    const r = await send(t.app, token, zipUrl(s.model.id), [{ field: 'file', filename: 'a.zip', data: await zip([{ path: 'coco.json', data: JSON.stringify(coco) }]) }]);
    expect(r.code, r.message).toBe(0);
    expect(await version(s.model.id)).toBe(1);
  });

  it('is raised by renaming or deleting a label, not by recolouring one', async () => {
    const s = await studio(t.app, token);
    await save(t.app, token, s, s.images[0]!, 0, [box(s.labels.scratch!), box(s.labels.dent!, 50)]);
    const url = (id: number) => `/api/models/${s.model.id}/labels/${id}`;
    await call<LabelData>(t.app, 'PUT', url(s.labels.dent!), { color: '#123456' }, { token });
    await call<LabelData>(t.app, 'PUT', url(s.labels.dent!), { name: 'dent' }, { token });
    expect(await version(s.model.id)).toBe(1);
    await call<LabelData>(t.app, 'PUT', url(s.labels.dent!), { name: 'Dent' }, { token });
    expect(await version(s.model.id)).toBe(2);
    expect((await del(url(s.labels.dent!))).json()).toMatchObject({ code: 0 });
    expect(await version(s.model.id)).toBe(3);
    expect((await load(t.app, token, s, s.images[0]!)).annotations.map((a) => a.labelId)).toEqual([s.labels.scratch]);
  });

  it('is raised by deleting labeled images, not unlabeled ones', async () => {
    const s = await studio(t.app, token, { count: 2 });
    const [a, b] = s.images as [number, number];
    await save(t.app, token, s, a, 0, [box(s.labels.scratch!)]);
    const remove = (id: number) => call(t.app, 'POST', `/api/models/${s.model.id}/images/delete`, { ids: [id] }, { token });
    await remove(b);
    expect(await version(s.model.id)).toBe(1);
    await remove(a);
    expect(await version(s.model.id)).toBe(2);
  });
});

describe('image class (SPEC §2 /mark classification)', () => {
  it('sets, changes and clears the class; labeled follows; each change raises dataVersion', async () => {
    const s = await studio(t.app, token, { type: 'classification', count: 2, labels: ['ok', 'ng'] });
    const [a] = s.images as [number];
    const url = `/api/models/${s.model.id}/images/${a}/class`;
    const put = (labelId: number | null) => call<ImageClassData>(t.app, 'PUT', url, { labelId }, { token });
    expect((await put(s.labels.ok!)).data).toEqual({ imageId: a, classLabelId: s.labels.ok, labeled: true });
    expect(await version(s.model.id)).toBe(1);
    await put(s.labels.ok!);
    expect(await version(s.model.id)).toBe(1);
    expect((await put(s.labels.ng!)).data.classLabelId).toBe(s.labels.ng);
    expect(await version(s.model.id)).toBe(2);
    const model = (await call<ModelData>(t.app, 'GET', `/api/models/${s.model.id}`, undefined, { token })).data;
    expect(model.labeledImages).toBe(1);
    expect((await put(null)).data).toEqual({ imageId: a, classLabelId: null, labeled: false });
    expect(await version(s.model.id)).toBe(3);
    // deleting the label an image is classed as clears it and counts as a change
    await put(s.labels.ok!);
    expect((await del(`/api/models/${s.model.id}/labels/${s.labels.ok}`)).json()).toMatchObject({ code: 0 });
    expect(await version(s.model.id)).toBe(5);
  });

  it('refuses another model\'s label, a missing image and models that are not classification', async () => {
    const s = await studio(t.app, token, { type: 'classification', labels: ['ok'] });
    const other = await studio(t.app, token, { type: 'classification', labels: ['ng'] });
    const url = (imageId: number) => `/api/models/${s.model.id}/images/${imageId}/class`;
    const foreign = await call(t.app, 'PUT', url(s.images[0]!), { labelId: other.labels.ng }, { token });
    expect(foreign).toMatchObject({ status: 400, code: Errors.labelNotInModel.code, message: `Label #${other.labels.ng} does not belong to this model.` });
    expect((await call(t.app, 'PUT', url(other.images[0]!), { labelId: null }, { token })).code).toBe(Errors.notFound.code);
    const det = await studio(t.app, token);
    const wrong = await call(t.app, 'PUT', `/api/models/${det.model.id}/images/${det.images[0]}/class`, { labelId: det.labels.scratch }, { token, lang: 'zh' });
    expect(wrong).toMatchObject({ status: 400, code: Errors.wrongModelType.code, message: '该模型类型不支持此操作。' });
    // a classification image carries a class, not shapes
    const shapes = await save(t.app, token, s, s.images[0]!, 0, [box(s.labels.ok!)]);
    expect(shapes.code).toBe(Errors.wrongModelType.code);
    expect(await version(s.model.id)).toBe(0);
  });

  it('a classified-folder upload raises dataVersion; plain images do not', async () => {
    const m = await newModel(t.app, token, 'classification');
    const up = await send<UploadData>(t.app, token, `/api/models/${m.id}/images/upload`, [{ filename: 'u.png', data: await draw('png', 40, 40, 9101) }]);
    expect(up.data.accepted).toBe(1);
    expect(await version(m.id)).toBe(0);
    const folders = await send<UploadData>(t.app, token, folderUrl(m.id), [{ filename: 'ok/1.png', data: await draw('png', 40, 40, 9102) }]);
    expect(folders.data.accepted).toBe(1);
    expect(await version(m.id)).toBe(1);
  });
});
