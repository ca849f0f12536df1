import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Provider from 'oidc-provider';
import { Errors, type LoginData, type PublicConfig, type UserInfoData } from '@loupe/contracts';
import { adminToken, call, startApp, type TestApp } from './helper.js';

/**
 * Single sign-on against a real OpenID provider (oidc-provider on 127.0.0.1) whose development login and
 * consent forms are filled in with fetch, as a browser would.
 */
const CALLBACK = 'http://loupe.test/api/auth/oidc/callback';
const people: Record<string, Record<string, unknown>> = {
  // Names with a bidi override and a zero-width space, which Loupe drops: the account reads Grace Hopper.
  grace: { email: 'Grace@Navy.test', email_verified: true, given_name: 'Gra\u202Ece', family_name: 'Hop\u200Bper' },
  mallory: { email: 'mallory@navy.test', email_verified: false },
};

let server: http.Server;
let issuer: string;
let t: TestApp;

beforeAll(async () => {
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'loupe',
        client_secret: 'loupe-test-secret',
        redirect_uris: [CALLBACK],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'name'] },
    findAccount: async (_ctx, id) => ({
      accountId: id,
      claims: async () => ({ sub: id, ...(people[id] ?? people.grace) }),
    }),
    cookies: { keys: ['oidc-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  server.on('request', provider.callback());
  t = await startApp({ oidc: { issuer, clientId: 'loupe', clientSecret: 'loupe-test-secret' } });
});

afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Follows the provider's redirects and submits its login and consent forms until it sends us back. */
async function signInAtProvider(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let method = 'GET';
  let body: string | undefined;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair!.split('=');
      jar.set(k!, v ?? '');
    }
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(CALLBACK)) return next;
      [url, method, body] = [next.href, 'GET', undefined];
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`provider page without a form (${res.status}): ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    const fields = new URLSearchParams({ prompt: prompt ?? 'login' });
    if (prompt === 'login') {
      fields.set('login', login);
      fields.set('password', 'any');
    }
    [url, method, body] = [new URL(action, url).href, 'POST', fields.toString()];
  }
  throw new Error('the provider never redirected back');
}

async function startSignIn(): Promise<{ location: string; cookie: string }> {
  const res = await t.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
  expect(res.statusCode).toBe(302);
  const cookie = res.cookies.find((c) => c.name === 'loupe_oidc_state');
  expect(cookie?.httpOnly).toBe(true);
  return { location: res.headers.location as string, cookie: `${cookie!.name}=${cookie!.value}` };
}

async function callback(url: URL, cookie: string): Promise<string> {
  const headers = { cookie, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' };
  const res = await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers });
  expect(res.statusCode).toBe(302);
  return res.headers.location as string;
}

describe('OpenID Connect sign-in', () => {
  it('is advertised in the public config', async () => {
    expect((await call<PublicConfig>(t.app, 'GET', '/api/config')).data.oidc).toBe(true);
  });

  it('sends the browser to the provider with state, nonce and PKCE', async () => {
    const { location } = await startSignIn();
    const auth = new URL(location);
    expect(auth.origin).toBe(issuer);
    for (const p of ['state', 'nonce', 'code_challenge']) expect(auth.searchParams.get(p)).toBeTruthy();
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('redirect_uri')).toBe(CALLBACK);
  });

  it('creates a pending account for a new verified email, then signs it in once approved', async () => {
    const first = await startSignIn();
    const back = await signInAtProvider(first.location, 'grace');
    expect(await callback(back, first.cookie)).toBe(`/signin?error=${Errors.accountUnderReview.code}`);

    const token = await adminToken(t.app);
    const list = await call<{ id: number; email: string; status: string; firstName: string }[]>(
      t.app, 'GET', '/api/admin/accounts?status=pending', undefined, { token },
    );
    const grace = list.data.find((a) => a.email === 'grace@navy.test');
    expect(grace).toMatchObject({ status: 'pending', firstName: 'Grace' });
    await call(t.app, 'POST', `/api/admin/accounts/${grace!.id}/approve`, undefined, { token });

    const second = await startSignIn();
    const target = await callback(await signInAtProvider(second.location, 'grace'), second.cookie);
    // The landing carries a one-time code, never the session token; the web app exchanges it by POST.
    expect(target).toMatch(/^\/logging\?code=[A-Za-z0-9_-]+$/);
    const code = decodeURIComponent(target.split('code=')[1]!);
    expect((await call(t.app, 'GET', `/api/vue-admin-template/user/info?token=${code}`)).code).toBe(Errors.sessionInvalid.code);
    const exchanged = await call<{ token: string }>(t.app, 'POST', '/api/auth/oidc/exchange', { code });
    expect(exchanged.code).toBe(0);
    const session = exchanged.data.token;
    expect(session).not.toBe(code);
    // Single use: a replay of the landing URL (history, a log) gets nothing.
    const replay = await call(t.app, 'POST', '/api/auth/oidc/exchange', { code }, { lang: 'de' });
    expect(replay).toMatchObject({ status: Errors.oidcFailed.status, code: Errors.oidcFailed.code });
    expect(replay.message).toMatch(/Single Sign-On|Anmeldung/i);
    const info = await call<UserInfoData>(t.app, 'GET', '/api/vue-admin-template/user/info', undefined, { token: session });
    expect(info.data).toMatchObject({ email: 'grace@navy.test', name: 'Grace Hopper', role: '0', language: 'de' });
    const profile = await call<{ hasPassword: boolean }>(t.app, 'GET', '/api/profile', undefined, { token: session });
    expect(profile.data.hasPassword).toBe(false);
    // An account from single sign-on may then choose a password for the ordinary sign-in.
    const set = await call(t.app, 'POST', '/api/password/set', { password: 'Cobol1959', confirmPassword: 'Cobol1959' }, { token: session });
    expect(set.code).toBe(0);
    expect((await call<LoginData>(t.app, 'POST', '/api/login', { username: 'grace@navy.test', password: 'Cobol1959' })).code).toBe(0);
  });

  it("expires the landing's code after a minute and refuses made-up codes", async () => {
    const start = await startSignIn();
    const target = await callback(await signInAtProvider(start.location, 'grace'), start.cookie);
    const code = decodeURIComponent(target.split('code=')[1]!);
    // Stored hashed: the database does not hold the code itself.
    const rows = await t.app.deps.db.selectFrom('one_time_tokens').select('token_hash').where('purpose', '=', 'oidc').execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.token_hash)).not.toContain(code);
    t.advance(61_000);
    expect((await call(t.app, 'POST', '/api/auth/oidc/exchange', { code })).code).toBe(Errors.oidcFailed.code);
    expect((await call(t.app, 'POST', '/api/auth/oidc/exchange', { code: 'made-up' })).code).toBe(Errors.oidcFailed.code);
    expect((await call(t.app, 'POST', '/api/auth/oidc/exchange', { code: '' })).code).toBe(Errors.oidcFailed.code);
  });

  it('refuses an unverified email, a replayed state and a state from another browser', async () => {
    const a = await startSignIn();
    const back = await signInAtProvider(a.location, 'mallory');
    expect(await callback(back, a.cookie)).toBe(`/signin?error=${Errors.oidcFailed.code}`);
    const list = await call<{ email: string }[]>(t.app, 'GET', '/api/admin/accounts', undefined, { token: await adminToken(t.app) });
    expect(list.data.map((x) => x.email)).not.toContain('mallory@navy.test');
    expect(await callback(back, a.cookie)).toBe(`/signin?error=${Errors.oidcFailed.code}`);

    const b = await startSignIn();
    const backB = await signInAtProvider(b.location, 'grace');
    expect(await callback(backB, 'loupe_oidc_state=someone-else')).toBe(`/signin?error=${Errors.oidcFailed.code}`);
  });

  it('answers oidcNotConfigured when no provider is set', async () => {
    const plain = await startApp();
    try {
      expect((await call<PublicConfig>(plain.app, 'GET', '/api/config')).data.oidc).toBe(false);
      const res = await plain.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expect(res.headers.location).toBe(`/signin?error=${Errors.oidcNotConfigured.code}`);
    } finally {
      await plain.close();
    }
  });
});
