import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, Limits, type AdminAccount, type OutboxPage, type OutboxResendData } from '@loupe/contracts';
import { adminToken, call, createUser, login, newUser, outbox, startApp, tokenOfLink, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const page = async (query: string, token?: string) =>
  (await call<OutboxPage>(t.app, 'GET', `/api/admin/outbox/page?${query}`, undefined, { token: token ?? (await adminToken(t.app)) })).data;
const resend = async (id: number, lang?: string) =>
  call<OutboxResendData>(t.app, 'POST', `/api/admin/outbox/${id}/resend`, undefined, { token: await adminToken(t.app), lang });

describe('outbox page (issue 31 item 1)', () => {
  it('is for administrators only', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    for (const [method, url] of [
      ['GET', '/api/admin/outbox/page'],
      ['POST', '/api/admin/outbox/1/resend'],
    ] as const) {
      const r = await call(t.app, method, url, undefined, { token });
      expect(r, url).toMatchObject({ status: 403, code: Errors.forbidden.code });
      expect((await call(t.app, method, url)).code, url).toBe(Errors.sessionInvalid.code);
    }
  });

  it('pages newest first, filters by part of the address in any case and says mail waits here', async () => {
    const tag = `pg${Date.now().toString(36)}`;
    const users = [0, 1, 2].map((i) => newUser({ email: `${tag}.${i}@paging.test` }));
    for (const u of users) expect((await call(t.app, 'POST', '/api/register', u)).code).toBe(0);
    const first = await page(`q=${tag.toUpperCase()}&pageSize=2`);
    expect(first).toMatchObject({ total: 3, page: 1, pageSize: 2, transport: 'outbox' });
    expect(first.items.map((m) => m.to)).toEqual([users[2]!.email, users[1]!.email]);
    const second = await page(`q=${tag}&pageSize=2&page=2`);
    expect(second.items.map((m) => m.to)).toEqual([users[0]!.email]);
    expect(second.items[0]).toMatchObject({ subject: expect.any(String), link: expect.stringContaining('/registered/check?token=') });
    // LIKE wildcards are plain characters in the search.
    expect((await page(`q=${tag}%25`)).total).toBe(0);
    const all = await page('');
    expect(all.total).toBeGreaterThanOrEqual(3);
    expect(all.pageSize).toBe(20);
    const bad = await call(t.app, 'GET', '/api/admin/outbox/page?pageSize=1000', undefined, { token: await adminToken(t.app) });
    expect(bad).toMatchObject({ status: 400, code: Errors.validation.code });
  });
});

describe('resending an outbox mail', () => {
  it('sends a mail whose link still works unchanged, and the link still activates', async () => {
    const u = newUser();
    await call(t.app, 'POST', '/api/register', u);
    const [mail] = await outbox(t.app, u.email);
    const r = await resend(mail!.id);
    expect(r).toMatchObject({ code: 0, data: { freshLink: false } });
    const after = await outbox(t.app, u.email);
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ subject: mail!.subject, text: mail!.text, link: mail!.link });
    expect(after[0]!.id).toBeGreaterThan(mail!.id);
    expect((await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mail!.link) })).code).toBe(0);
  });

  it('sends a fresh activation link when the old one expired and the account is still not activated', async () => {
    const u = newUser();
    await call(t.app, 'POST', '/api/register', u);
    const [old] = await outbox(t.app, u.email);
    t.advance(Limits.activationTtlS * 1000 + 60_000);
    const expired = await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(old!.link) });
    expect(expired.code).toBe(Errors.activationInvalid.code);
    const r = await resend(old!.id);
    expect(r).toMatchObject({ code: 0, data: { freshLink: true } });
    const [fresh] = await outbox(t.app, u.email);
    expect(fresh!.id).toBeGreaterThan(old!.id);
    expect(fresh!.link).not.toBe(old!.link);
    expect(fresh!.link).toContain('/registered/check?token=');
    expect((await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(fresh!.link) })).code).toBe(0);
    // Resending the first mail again now: the account is activated, its links are dead.
    const dead = await resend(old!.id, 'de');
    expect(dead).toMatchObject({ status: 409, code: Errors.mailLinkDead.code, message: expect.stringContaining('funktioniert nicht mehr') });
    expect(await outbox(t.app, u.email)).toHaveLength(2);
  });

  it('refuses an activation mail of a registration past its allowed time', async () => {
    const u = newUser();
    await call(t.app, 'POST', '/api/register', u);
    const [old] = await outbox(t.app, u.email);
    t.advance(Limits.registrationTtlS * 1000 + 60_000);
    expect((await resend(old!.id)).code).toBe(Errors.registrationTooLong.code);
    expect(await outbox(t.app, u.email)).toHaveLength(1);
  });

  it('resends a notice without a link as it was, and a reset link only while it works', async () => {
    const { user } = await createUser(t.app);
    const [approved] = await outbox(t.app, user.email);
    expect(approved!.link).toContain('/signin');
    expect((await resend(approved!.id)).data).toEqual({ freshLink: false });
    expect((await outbox(t.app, user.email))[0]).toMatchObject({ subject: approved!.subject, text: approved!.text });

    await call(t.app, 'POST', '/api/password/forgot', { email: user.email });
    const [reset] = await outbox(t.app, user.email);
    expect(reset!.link).toContain('/forget-set-password');
    expect((await resend(reset!.id)).data).toEqual({ freshLink: false });
    const used = await call(t.app, 'POST', '/api/password/reset', {
      token: tokenOfLink(reset!.link),
      password: 'Wheels1843',
      confirmPassword: 'Wheels1843',
    });
    expect(used.code).toBe(0);
    const before = (await outbox(t.app, user.email)).length;
    expect((await resend(reset!.id)).code).toBe(Errors.mailLinkDead.code);
    expect(await outbox(t.app, user.email)).toHaveLength(before);
  });

  it('answers notFound for an unknown mail', async () => {
    const r = await resend(999_999);
    expect(r).toMatchObject({ status: 404, code: Errors.notFound.code });
  });

  it('goes through SMTP once it is configured, and the page says so', async () => {
    const u = newUser();
    await call(t.app, 'POST', '/api/register', u);
    const [mail] = await outbox(t.app, u.email);
    // A second server on the same data, configured with an SMTP server that is not there.
    const smtp = await startApp({ dataDir: t.config.dataDir, databaseSchema: t.config.databaseSchema, smtpUrl: 'smtp://127.0.0.1:1' });
    try {
      const token = await adminToken(smtp.app);
      const p = (await call<OutboxPage>(smtp.app, 'GET', `/api/admin/outbox/page?q=${encodeURIComponent(u.email)}`, undefined, { token })).data;
      expect(p).toMatchObject({ transport: 'smtp', total: 1 });
      const r = await call(smtp.app, 'POST', `/api/admin/outbox/${mail!.id}/resend`, undefined, { token });
      expect(r).toMatchObject({ status: 500, code: Errors.emailSendFailed.code });
      expect(await outbox(t.app, u.email)).toHaveLength(1);
    } finally {
      await smtp.app.close();
    }
  });
});

describe('account search', () => {
  it('matches name, email or company in any case, with the status filter', async () => {
    const tag = `Srch${Date.now().toString(36)}`;
    const a = await createUser(t.app, { overrides: { firstName: `Grace${tag}`, company: 'Harvard Mark' } });
    const b = await createUser(t.app, { approve: false, overrides: { company: `Cobol ${tag} Works` } });
    const c = await createUser(t.app, { overrides: { email: `${tag.toLowerCase()}.x@search.test` } });
    const token = await adminToken(t.app);
    const find = async (query: string) =>
      (await call<AdminAccount[]>(t.app, 'GET', `/api/admin/accounts?${query}`, undefined, { token })).data.map((x) => x.email).sort();
    expect(await find(`q=${tag.toUpperCase()}`)).toEqual([a.user.email, b.user.email, c.user.email].sort());
    expect(await find(`q=${encodeURIComponent(`grace${tag} lovelace`)}`)).toEqual([a.user.email]);
    expect(await find(`q=${tag}&status=pending`)).toEqual([b.user.email]);
    expect(await find(`q=${tag}_`)).toEqual([]);
  });
});
