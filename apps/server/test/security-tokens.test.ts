import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { Errors, type ImageListData, type UploadData, type UserInfoData } from '@loupe/contracts';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl } from './gallery-fixtures.js';

/**
 * Issue 30 item 2: no session token in URLs (except SPEC §7's user/info) and none in the logs. Files that
 * <img> and download links fetch are signed in by the HttpOnly, SameSite=Strict files cookie.
 */
let t: TestApp;
const log: string[] = [];
let alice: { email: string; password: string };
let token: string;
let other: string;
let modelId: number;
let imageId: number;
let original: string;
let thumbnail: string;

beforeAll(async () => {
  t = await startApp({ logLevel: 'info' }, { logStream: { write: (line) => void log.push(line) } });
  alice = (await createUser(t.app)).user;
  token = await login(t.app, alice.email, alice.password);
  const bob = (await createUser(t.app)).user;
  other = await login(t.app, bob.email, bob.password);
  const m = await newModel(t.app, token);
  modelId = m.id;
  const up = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'part.png', data: await draw('png', 48, 40, 5) }]);
  if (!up.data.results?.[0]?.imageId) throw new Error(`upload failed: ${JSON.stringify(up)}`);
  imageId = up.data.results[0]!.imageId!;
  const list = await call<ImageListData>(t.app, 'GET', `/api/models/${m.id}/images`, undefined, { token });
  original = list.data.items[0]!.originalUrl;
  thumbnail = list.data.items[0]!.thumbnailUrl;
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codeOf = (res: { headers: Record<string, unknown>; json(): unknown }) =>
  String(res.headers['content-type']).includes('application/json') ? (res.json() as { code: number }).code : 0;

/** The files cookie an answer sets, as a Cookie header value. */
async function filesCookie(bearer: string): Promise<string> {
  const res = await get(`/api/models/${modelId}/images`, { 'x-token': bearer });
  const c = res.cookies.find((x) => x.name === 'loupe_files');
  expect(c, 'a header-authenticated call sets the files cookie').toBeTruthy();
  return `loupe_files=${c!.value}`;
}

describe('a token in the query string', () => {
  it('is refused by every route but user/info, files included', async () => {
    const routes = [
      `/api/models`,
      `/api/models/${modelId}`,
      `/api/models/${modelId}/images`,
      original,
      thumbnail,
      `/api/models/${modelId}/download/images?format=coco`,
      `/api/profile`,
      `/api/models/${modelId}/trainings`,
    ];
    for (const route of routes) {
      const res = await get(`${route}${route.includes('?') ? '&' : '?'}token=${token}`);
      expect(res.statusCode, route).toBe(Errors.sessionInvalid.status);
      expect(codeOf(res), route).toBe(Errors.sessionInvalid.code);
    }
    // The same routes answer with the header, so the refusal is the query token's, not the route's.
    for (const route of routes) expect((await get(route, { 'x-token': token })).statusCode, route).toBe(200);
  });

  it('still signs in GET user/info (SPEC §7)', async () => {
    const info = await call<UserInfoData>(t.app, 'GET', `/api/vue-admin-template/user/info?token=${token}`);
    expect(info.code).toBe(0);
    expect(info.data.email).toBe(alice.email);
  });
});

describe('the files cookie', () => {
  it('is HttpOnly and SameSite=Strict, path /api, not Secure over plain http', async () => {
    const res = await get(`/api/models/${modelId}/images`, { 'x-token': token });
    const c = res.cookies.find((x) => x.name === 'loupe_files')!;
    expect(c).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api' });
    expect(c.secure).toBeFalsy();
    // Set again only when the browser's copy differs.
    const again = await get(`/api/models/${modelId}/images`, { 'x-token': token, cookie: `loupe_files=${c.value}` });
    expect(again.cookies.find((x) => x.name === 'loupe_files')).toBeUndefined();
  });

  it('is Secure when the request came over TLS', async () => {
    const tls = await startApp({ trustProxy: true });
    try {
      const u = (await createUser(tls.app)).user;
      const bearer = await login(tls.app, u.email, u.password);
      const res = await tls.app.inject({ method: 'GET', url: '/api/models', headers: { 'x-token': bearer, 'x-forwarded-proto': 'https' } });
      expect(res.cookies.find((x) => x.name === 'loupe_files')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' });
    } finally {
      await tls.close();
    }
  });

  it('fetches the original, the thumbnail and the dataset export, which a plain <img>/<a> cannot sign otherwise', async () => {
    const cookie = await filesCookie(token);
    const o = await get(original, { cookie });
    expect(o.statusCode).toBe(200);
    expect(o.headers['content-type']).toBe('image/png');
    expect((await get(thumbnail, { cookie })).statusCode).toBe(200);
    const zip = await get(`/api/models/${modelId}/download/images?format=coco`, { cookie });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    await new Promise<void>((resolve, reject) => yauzl.fromBuffer(zip.rawPayload, (err) => (err ? reject(err) : resolve())));
    // Without it, the same URLs are refused.
    expect((await get(original)).statusCode).toBe(Errors.sessionInvalid.status);
  });

  it('signs in nothing else: JSON routes and any non-GET ignore it', async () => {
    const cookie = await filesCookie(token);
    for (const route of [`/api/models`, `/api/models/${modelId}/images`, `/api/vue-admin-template/user/info`]) {
      expect(codeOf(await get(route, { cookie })), route).toBe(Errors.sessionInvalid.code);
    }
    const star = await t.app.inject({
      method: 'POST',
      url: `/api/models/${modelId}/images/star`,
      headers: { cookie, 'content-type': 'application/json' },
      payload: JSON.stringify({ ids: [imageId], starred: true }),
    });
    expect(codeOf(star)).toBe(Errors.sessionInvalid.code);
  });

  it("does not open another account's files, nor a tampered value", async () => {
    const bobs = await filesCookie(other);
    expect((await get(original, { cookie: bobs })).statusCode).toBe(404);
    const mine = await filesCookie(token);
    const tampered = `${mine.slice(0, -2)}${mine.endsWith('A') ? 'B' : 'A'}A`;
    expect(codeOf(await get(original, { cookie: tampered }))).toBe(Errors.sessionInvalid.code);
  });

  it('dies with its session: sign-out clears it and a later sign-in elsewhere replaces it', async () => {
    const u = (await createUser(t.app)).user;
    const first = await login(t.app, u.email, u.password);
    const m = await newModel(t.app, first);
    const up = await send<UploadData>(t.app, first, uploadUrl(m.id), [{ filename: 'a.png', data: await draw('png', 40, 40, 9) }]);
    const url = `/api/models/${m.id}/images/${up.data.results[0]!.imageId!}/original`;
    const res = await get(`/api/models/${m.id}/images`, { 'x-token': first });
    const cookie = `loupe_files=${res.cookies.find((x) => x.name === 'loupe_files')!.value}`;
    expect((await get(url, { cookie })).statusCode).toBe(200);

    const second = await login(t.app, u.email, u.password);
    expect(codeOf(await get(url, { cookie }))).toBe(Errors.loggedInElsewhere.code);
    const fresh = await get(`/api/models/${m.id}/images`, { 'x-token': second, cookie });
    const next = fresh.cookies.find((x) => x.name === 'loupe_files')!;
    expect(next.value).not.toBe(cookie.split('=')[1]);
    const nextCookie = `loupe_files=${next.value}`;
    expect((await get(url, { cookie: nextCookie })).statusCode).toBe(200);

    const out = await t.app.inject({ method: 'POST', url: '/api/logout', headers: { 'x-token': second, cookie: nextCookie } });
    expect(out.statusCode).toBe(200);
    const cleared = out.cookies.find((x) => x.name === 'loupe_files');
    expect(cleared?.value).toBe('');
    expect(codeOf(await get(url, { cookie: nextCookie }))).toBe(Errors.sessionInvalid.code);
  });
});

describe('the request log', () => {
  it('writes no token, code or password, from the URL or from headers', async () => {
    const cookie = await filesCookie(token);
    log.length = 0;
    await get(`/api/vue-admin-template/user/info?token=${token}`);
    await get(`/api/models?token=${token}&page=1`);
    await get(original, { cookie });
    await get(`/api/models/${modelId}/images`, { 'x-token': token, authorization: `Bearer ${token}` });
    await get('/api/auth/oidc/callback?code=provider-code-123&state=state-456');
    await get('/api/anything?password=hunter2&signature=sig-789');
    const text = log.join('');
    expect(log.length).toBeGreaterThanOrEqual(12); // an incoming and a completed line per request
    expect(text).toContain('/api/vue-admin-template/user/info?token=[redacted]');
    expect(text).toContain('/api/models?token=[redacted]&page=1');
    for (const secret of [token, 'provider-code-123', 'state-456', 'hunter2', 'sig-789']) expect(text).not.toContain(secret);
  });
});
