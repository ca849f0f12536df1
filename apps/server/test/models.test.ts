import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, MODEL_TYPE_NAMES, type ModelData, type ModelListData } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken } from './gallery-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

describe('models (SPEC §3 model, §5 model rules)', () => {
  it('creates each of the seven types with the session-storage project data', async () => {
    for (const type of MODEL_TYPE_NAMES) {
      const r = await call<ModelData>(t.app, 'POST', '/api/models', { name: `Line 1 ${type}`, type, note: 'north hall' }, { token });
      expect(r.code, r.message).toBe(0);
      expect(r.data).toMatchObject({ name: `Line 1 ${type}`, type, note: 'north hall', projectStatus: 'no', trainingStatus: 'notTrained', testStatus: 'notTested', trainingCount: 0, totalImages: 0, labeledImages: 0, belowRecommendedImages: true, recommendedImages: 30 });
      expect(r.data.sidebarType).toBe(type === 'FPG' || type === 'RPG' ? 2 : 8);
      expect(r.data.productType).toBe(type.toLowerCase());
      expect(r.data.code).toMatch(/^[a-z]+-[0-9a-f]{12}$/);
    }
  });

  it('checks name required, unique per account (any case), lengths, and type', async () => {
    const other = await userToken(t.app);
    await newModel(t.app, token, 'OCR', 'Screws');
    const dup = await call(t.app, 'POST', '/api/models', { name: ' screws ', type: 'OCR' }, { token, lang: 'zh' });
    expect(dup).toMatchObject({ status: 409, code: Errors.modelNameExists.code, message: '模型名称已存在。' });
    expect((await call(t.app, 'POST', '/api/models', { name: 'Screws', type: 'OCR' }, { token: other })).code).toBe(0);
    expect((await call(t.app, 'POST', '/api/models', { name: '  ', type: 'OCR' }, { token })).code).toBe(Errors.fieldRequired.code);
    const long = await call(t.app, 'POST', '/api/models', { name: 'x'.repeat(101), type: 'OCR' }, { token });
    expect(long).toMatchObject({ code: Errors.fieldTooLong.code, message: 'Name must be at most 100 characters.' });
    expect((await call(t.app, 'POST', '/api/models', { name: 'x'.repeat(100), type: 'OCR' }, { token })).code).toBe(0);
    expect((await call(t.app, 'POST', '/api/models', { name: 'n', note: 'y'.repeat(101), type: 'OCR' }, { token })).code).toBe(Errors.fieldTooLong.code);
    expect((await call(t.app, 'POST', '/api/models', { name: 'n', type: 'YOLO' }, { token })).code).toBe(Errors.validation.code);
    expect((await call(t.app, 'POST', '/api/models', { name: 'n' }, { token })).code).toBe(Errors.fieldRequired.code);
  });

  it('updates name and note, keeping names unique', async () => {
    const a = await newModel(t.app, token, 'DETECTION', 'Alpha');
    await newModel(t.app, token, 'DETECTION', 'Beta');
    const clash = await call(t.app, 'PUT', `/api/models/${a.id}`, { name: 'BETA' }, { token });
    expect(clash.code).toBe(Errors.modelNameExists.code);
    const r = await call<ModelData>(t.app, 'PUT', `/api/models/${a.id}`, { name: 'Alpha 2', note: 'moved' }, { token });
    expect(r.data).toMatchObject({ name: 'Alpha 2', note: 'moved' });
    expect((await call<ModelData>(t.app, 'PUT', `/api/models/${a.id}`, { name: 'alpha 2' }, { token })).data.name).toBe('alpha 2');
  });

  it('lists with type, status and name filters, sorting and paging; scoped to the owner', async () => {
    const me = await userToken(t.app);
    const m1 = await newModel(t.app, me, 'DETECTION', 'Bolt 100%');
    await newModel(t.app, me, 'OCR', 'Label reader');
    const m3 = await newModel(t.app, me, 'DETECTION', 'bolt_b');
    await send(t.app, me, uploadUrl(m3.id), [{ filename: 'a.png', data: await draw('png', 64, 64, 1) }, { filename: 'b.png', data: await draw('png', 64, 64, 2) }]);
    await send(t.app, me, uploadUrl(m1.id), [{ filename: 'a.png', data: await draw('png', 64, 64, 3) }]);
    const list = (q: string) => call<ModelListData>(t.app, 'GET', `/api/models${q}`, undefined, { token: me });
    expect((await list('')).data.total).toBe(3);
    expect((await list('?type=DETECTION')).data.items.map((m) => m.name).sort()).toEqual(['Bolt 100%', 'bolt_b']);
    expect((await list('?name=BOLT')).data.total).toBe(2);
    expect((await list('?name=%25')).data.items.map((m) => m.name)).toEqual(['Bolt 100%']);
    expect((await list('?name=_')).data.items.map((m) => m.name)).toEqual(['bolt_b']);
    expect((await list('?trainingStatus=notTrained')).data.total).toBe(3);
    expect((await list('?trainingStatus=training')).data.total).toBe(0);
    expect((await list('?sort=name')).data.items.map((m) => m.name)).toEqual(['Bolt 100%', 'bolt_b', 'Label reader']);
    expect((await list('?sort=images&order=desc')).data.items.map((m) => m.totalImages)).toEqual([2, 1, 0]);
    const page2 = await list('?sort=name&pageSize=2&page=2');
    expect(page2.data).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(page2.data.items.map((m) => m.name)).toEqual(['Label reader']);
    // another account sees none of these and cannot open them
    expect((await call<ModelListData>(t.app, 'GET', '/api/models', undefined, { token })).data.items.some((m) => m.id === m1.id)).toBe(false);
    expect((await call(t.app, 'GET', `/api/models/${m1.id}`, undefined, { token })).code).toBe(Errors.notFound.code);
    expect((await call(t.app, 'PUT', `/api/models/${m1.id}`, { name: 'mine' }, { token })).code).toBe(Errors.notFound.code);
    expect((await t.app.inject({ method: 'DELETE', url: `/api/models/${m1.id}`, headers: { 'x-token': token } })).statusCode).toBe(404);
    const one = await call<ModelData>(t.app, 'GET', `/api/models/${m3.id}`, undefined, { token: me });
    expect(one.data).toMatchObject({ totalImages: 2, labeledImages: 0, belowRecommendedImages: true });
  });

  it('needs a session', async () => {
    expect((await call(t.app, 'GET', '/api/models')).code).toBe(Errors.sessionInvalid.code);
  });
});
