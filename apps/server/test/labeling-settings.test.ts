import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, LabelingLimits, type GuidesData, type LabelingSettingsData } from '@loupe/contracts';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { studio } from './labeling-fixtures.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
});
afterAll(() => t.close());

describe('labeling settings (SPEC §5 minimum annotation area)', () => {
  it('starts at the default and keeps minArea within 0..max per model', async () => {
    const s = await studio(t.app, token);
    const other = await studio(t.app, token);
    const url = `/api/models/${s.model.id}/labeling-settings`;
    const get = (u = url) => call<LabelingSettingsData>(t.app, 'GET', u, undefined, { token });
    expect((await get()).data).toEqual({ minArea: LabelingLimits.minAreaDefault });
    for (const minArea of [0, 2.5, LabelingLimits.minAreaMax]) {
      expect((await call(t.app, 'PUT', url, { minArea }, { token })).data).toEqual({ minArea });
      expect((await get()).data).toEqual({ minArea });
    }
    for (const minArea of [-1, LabelingLimits.minAreaMax + 1]) {
      const r = await call(t.app, 'PUT', url, { minArea }, { token, lang: 'de' });
      expect(r).toMatchObject({ status: 400, code: Errors.validation.code });
    }
    expect((await call(t.app, 'PUT', url, {}, { token })).code).toBe(Errors.fieldRequired.code);
    expect((await get()).data).toEqual({ minArea: LabelingLimits.minAreaMax });
    expect((await get(`/api/models/${other.model.id}/labeling-settings`)).data).toEqual({ minArea: LabelingLimits.minAreaDefault });
  });
});

describe('first-use guides (SPEC §4 labeling with first-use guides per type)', () => {
  it('remembers closed guides per account, across sign-ins; adding one twice keeps one', async () => {
    const { user } = await createUser(t.app);
    const first = await login(t.app, user.email, user.password);
    const guides = (tk: string) => call<GuidesData>(t.app, 'GET', '/api/user/guides', undefined, { token: tk });
    const seen = (tk: string, guide: string) => call<GuidesData>(t.app, 'POST', '/api/user/guides', { guide }, { token: tk });
    expect((await guides(first)).data).toEqual({ seen: [] });
    expect((await seen(first, 'mark-ocr')).data).toEqual({ seen: ['mark-ocr'] });
    expect((await seen(first, 'mark-detection')).data).toEqual({ seen: ['mark-detection', 'mark-ocr'] });
    expect((await seen(first, 'mark-ocr')).data).toEqual({ seen: ['mark-detection', 'mark-ocr'] });
    expect((await seen(first, 'mark-everything')).code).toBe(Errors.validation.code);
    const second = await login(t.app, user.email, user.password);
    expect((await guides(second)).data).toEqual({ seen: ['mark-detection', 'mark-ocr'] });
    expect((await guides(token)).data).toEqual({ seen: [] });
    expect((await call(t.app, 'GET', '/api/user/guides')).code).toBe(Errors.sessionInvalid.code);
  });
});

describe('access', () => {
  it('needs a session, and another account\'s model is notFound on every labeling route', async () => {
    const s = await studio(t.app, token);
    const stranger = await userToken(t.app);
    const img = `/api/models/${s.model.id}/images/${s.images[0]}`;
    const routes: ['GET' | 'PUT' | 'POST', string, Record<string, unknown>?][] = [
      ['PUT', `${img}/annotations`, { baseVersion: 0, annotations: [] }],
      ['GET', `${img}/annotations`],
      ['PUT', `${img}/class`, { labelId: null }],
      ['GET', `${img}/test-results`],
      ['POST', `${img}/test-results/convert`, { baseVersion: 0 }],
      ['GET', `/api/models/${s.model.id}/labeling-settings`],
      ['PUT', `/api/models/${s.model.id}/labeling-settings`, { minArea: 1 }],
    ];
    for (const [method, url, body] of routes) {
      expect(await call(t.app, method, url, body, { token: stranger }), `${method} ${url}`).toMatchObject({ status: 404, code: Errors.notFound.code });
      expect((await call(t.app, method, url, body)).status, `${method} ${url}`).toBe(401);
    }
    expect((await call<LabelingSettingsData>(t.app, 'GET', `/api/models/${s.model.id}/labeling-settings`, undefined, { token })).data.minArea).toBe(LabelingLimits.minAreaDefault);
    // an image id of another model of the same account is notFound as well
    const mine = await studio(t.app, token);
    const cross = await call(t.app, 'PUT', `/api/models/${s.model.id}/images/${mine.images[0]}/annotations`, { baseVersion: 0, annotations: [] }, { token });
    expect(cross.code).toBe(Errors.notFound.code);
  });
});
