import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type AdminAccount, type OutboxMail, type ProfileData, type UserInfoData } from '@loupe/contracts';
import { ADMIN, adminToken, call, createUser, login, newUser, startApp, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('profile (SPEC §3)', () => {
  it('shows and updates the editable fields', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    const got = await call<ProfileData>(t.app, 'GET', '/api/profile', undefined, { token });
    expect(got.data).toMatchObject({
      name: 'Ada Lovelace',
      email: user.email,
      account: user.email,
      company: user.company,
      language: 'en',
      trainingPriority: 0,
      downloadPermission: false,
      hasPassword: true,
    });
    const put = await call<ProfileData>(
      t.app,
      'PUT',
      '/api/profile',
      { company: 'Babbage & Co', companyId: 'GB-42', landline: '(020) 7946-0958', mobile: '+44 7700 900123', language: 'zh' },
      { token },
    );
    expect(put).toMatchObject({ code: 0, data: { company: 'Babbage & Co', companyId: 'GB-42', language: 'zh', mobile: '+447700900123' } });
    const info = await call<UserInfoData>(t.app, 'GET', '/api/vue-admin-template/user/info', undefined, { token });
    expect(info.data.language).toBe('zh');
    expect(info.data.companyName).toBe('Babbage & Co');
  });

  it('checks the landline and mobile formats and keeps email read-only', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    const landline = await call(t.app, 'PUT', '/api/profile', { landline: 'call me maybe' }, { token, lang: 'de' });
    expect(landline).toMatchObject({ status: 400, code: Errors.landlineFormat.code, message: 'Bitte geben Sie eine gültige Festnetznummer ein.' });
    const mobile = await call(t.app, 'PUT', '/api/profile', { mobile: 'x1' }, { token });
    expect(mobile.code).toBe(Errors.phoneFormat.code);
    const blankName = await call(t.app, 'PUT', '/api/profile', { firstName: ' ' }, { token });
    expect(blankName).toMatchObject({ code: Errors.fieldRequired.code, message: 'First name is required.' });
    // email is not an editable field: sending it changes nothing.
    await call(t.app, 'PUT', '/api/profile', { email: 'other@factory.test' }, { token });
    expect((await call<ProfileData>(t.app, 'GET', '/api/profile', undefined, { token })).data.email).toBe(user.email);
  });

  it('lets only administrators change the training priority', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    const r = await call(t.app, 'PUT', '/api/profile', { trainingPriority: 5 }, { token });
    expect(r).toMatchObject({ status: 403, code: Errors.forbidden.code });
    const admin = await call<ProfileData>(t.app, 'PUT', '/api/profile', { trainingPriority: 5 }, { token: await adminToken(t.app) });
    expect(admin.data.trainingPriority).toBe(5);
  });

  it('refuses a mobile number another account uses', async () => {
    const a = await createUser(t.app);
    const b = await createUser(t.app);
    const token = await login(t.app, b.user.email, b.user.password);
    const r = await call(t.app, 'PUT', '/api/profile', { mobile: a.user.phone }, { token });
    expect(r.code).toBe(Errors.phoneRegistered.code);
  });
});

describe('administration', () => {
  it('is for role 1 only', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    for (const [method, url] of [
      ['GET', '/api/admin/accounts'],
      ['GET', '/api/admin/outbox'],
      ['POST', '/api/admin/accounts/1/approve'],
      ['POST', '/api/admin/accounts/1/reject'],
    ] as const) {
      const r = await call(t.app, method, url, undefined, { token });
      expect(r, url).toMatchObject({ status: 403, code: Errors.forbidden.code, message: 'You do not have permission to do this.' });
    }
    expect((await call(t.app, 'GET', '/api/admin/accounts')).code).toBe(99990);
  });

  it('lists pending accounts first and filters by status', async () => {
    await createUser(t.app);
    const pending = await createUser(t.app, { approve: false });
    const token = await adminToken(t.app);
    const all = await call<AdminAccount[]>(t.app, 'GET', '/api/admin/accounts', undefined, { token });
    const statuses = all.data.map((a) => a.status);
    expect(statuses[0]).toBe('pending');
    expect(statuses.lastIndexOf('pending')).toBeLessThan(statuses.indexOf('approved'));
    const onlyPending = await call<AdminAccount[]>(t.app, 'GET', '/api/admin/accounts?status=pending', undefined, { token });
    expect(onlyPending.data.every((a) => a.status === 'pending')).toBe(true);
    expect(onlyPending.data.map((a) => a.email)).toContain(pending.user.email);
    const bad = await call(t.app, 'GET', '/api/admin/accounts?status=sleeping', undefined, { token });
    expect(bad).toMatchObject({ status: 400, code: Errors.validation.code });
  });

  it('reviews only activated accounts and answers notFound for unknown ids', async () => {
    const { user } = await createUser(t.app, { activate: false });
    // Taken after createUser, which signs the administrator in itself (one session per account).
    const token = await adminToken(t.app);
    expect((await call(t.app, 'POST', '/api/admin/accounts/99999/approve', undefined, { token })).status).toBe(404);
    const list = await call<AdminAccount[]>(t.app, 'GET', '/api/admin/accounts?status=unactivated', undefined, { token });
    const id = list.data.find((a) => a.email === user.email)!.id;
    const r = await call(t.app, 'POST', `/api/admin/accounts/${id}/approve`, undefined, { token });
    expect(r).toMatchObject({ status: 409, code: Errors.accountNotPending.code });
  });

  it('grants download permission and training priority per account', async () => {
    const { user, id } = await createUser(t.app);
    const token = await adminToken(t.app);
    const r = await call<AdminAccount>(t.app, 'PUT', `/api/admin/accounts/${id}/settings`, { downloadPermission: true, trainingPriority: 3 }, { token });
    expect(r.data).toMatchObject({ id, downloadPermission: true, trainingPriority: 3 });
    const bad = await call(t.app, 'PUT', `/api/admin/accounts/${id}/settings`, { trainingPriority: 11 }, { token, lang: 'de' });
    expect(bad).toMatchObject({ status: 400, code: Errors.validation.code, message: 'Ungültiger Wert für Trainingspriorität: außerhalb des zulässigen Bereichs' });
    const session = await login(t.app, user.email, user.password);
    const profile = await call<ProfileData>(t.app, 'GET', '/api/profile', undefined, { token: session });
    expect(profile.data).toMatchObject({ downloadPermission: true, trainingPriority: 3 });
    const forbidden = await call(t.app, 'PUT', `/api/admin/accounts/${id}/settings`, { downloadPermission: false }, { token: session });
    expect(forbidden.code).toBe(Errors.forbidden.code);
  });

  it('filters the outbox by recipient', async () => {
    const a = newUser();
    const b = newUser();
    await call(t.app, 'POST', '/api/register', a);
    await call(t.app, 'POST', '/api/register', b);
    const token = await adminToken(t.app);
    const only = await call<OutboxMail[]>(t.app, 'GET', `/api/admin/outbox?to=${encodeURIComponent(a.email)}`, undefined, { token });
    expect(only.data.map((m) => m.to)).toEqual([a.email]);
    const all = await call<OutboxMail[]>(t.app, 'GET', '/api/admin/outbox', undefined, { token });
    expect(all.data.map((m) => m.to)).toEqual(expect.arrayContaining([a.email, b.email]));
  });

  it('keeps the configured first administrator', async () => {
    const token = await login(t.app, ADMIN.email, ADMIN.password);
    const info = await call<UserInfoData>(t.app, 'GET', '/api/vue-admin-template/user/info', undefined, { token });
    expect(info.data).toMatchObject({ role: '1', roleName: 'admin' });
    expect(t.printed).toEqual([]);
  });
});
