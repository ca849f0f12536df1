import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, Limits, type LoginData, type SendCodeData, type UserInfoData } from '@loupe/contracts';
import type { Static } from 'typebox';
import { ADMIN, call, createUser, login, outbox, startApp, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const passwordLogin = (username: unknown, password: unknown, lang?: string) =>
  call<LoginData>(t.app, 'POST', '/api/login', { username, password }, { lang });

describe('password login', () => {
  it('trims the account, ignores its case and returns the session', async () => {
    const { user } = await createUser(t.app);
    const r = await passwordLogin(`  ${user.email.toUpperCase()} `, user.password);
    expect(r).toMatchObject({ status: 200, code: 0, message: 'ok' });
    expect(r.data).toMatchObject({ email: user.email, role: '0', roleName: 'user', isprivate: false, companyName: user.company });
    expect(r.data.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.data.user_info).toMatchObject({ email: user.email, name: 'Ada Lovelace', company: user.company });
    expect(r.data.menus.map((m) => m.id)).toEqual(['models', 'secondaryDevelopment', 'account']);
  });

  it('checks the fields (SPEC §5) in the caller language', async () => {
    expect(await passwordLogin('', 'secret1')).toMatchObject({ code: Errors.fieldRequired.code, message: 'Account is required.' });
    expect(await passwordLogin('a@b.co', '')).toMatchObject({ code: Errors.fieldRequired.code, message: 'Password is required.' });
    expect(await passwordLogin('a@b.co', '12345', 'zh')).toMatchObject({ code: Errors.passwordLength.code, message: '密码长度须为 6 到 32 个字符。' });
    expect((await passwordLogin('a@b.co', 'x'.repeat(33))).code).toBe(Errors.passwordLength.code);
    const missing = await call(t.app, 'POST', '/api/login', { username: 'a@b.co' }, { lang: 'de' });
    expect(missing).toMatchObject({ status: 400, code: Errors.fieldRequired.code, message: 'Passwort ist erforderlich.' });
    const wrongType = await call(t.app, 'POST', '/api/login', { username: 'a@b.co', password: { x: 1 } });
    expect(wrongType).toMatchObject({ status: 400, code: Errors.validation.code, message: 'Invalid value for Password: wrong type' });
  });

  it('answers badCredentials for a wrong password or an unknown account', async () => {
    const { user } = await createUser(t.app);
    const wrong = await passwordLogin(user.email, 'Wrong1234');
    expect(wrong).toMatchObject({ status: 401, code: Errors.badCredentials.code, message: 'Incorrect email or password.' });
    expect((await passwordLogin('nobody@factory.test', 'Wrong1234')).code).toBe(Errors.badCredentials.code);
  });

  it('answers phoneNotSupported for a phone and useEmailLogin for other names', async () => {
    expect((await passwordLogin('+49 170 1234567', 'secret1')).code).toBe(Errors.phoneNotSupported.code);
    expect((await passwordLogin('ada', 'secret1')).code).toBe(Errors.useEmailLogin.code);
  });
});

describe('one active session per account (SPEC §6)', () => {
  it('ends the older session with 99993 when the account signs in elsewhere', async () => {
    const { user } = await createUser(t.app);
    const first = await login(t.app, user.email, user.password);
    const info = await call<UserInfoData>(t.app, 'GET', `/api/vue-admin-template/user/info?token=${first}`);
    expect(info).toMatchObject({ code: 0, data: { email: user.email, avatar: '', role: '0' } });

    const second = await login(t.app, user.email, user.password);
    const old = await call(t.app, 'GET', '/api/vue-admin-template/user/info', undefined, { token: first });
    expect(old).toMatchObject({ status: 401, code: 99993, message: 'Your account has signed in somewhere else. Please sign in again.' });
    const current = await call(t.app, 'GET', '/api/vue-admin-template/user/info', undefined, { token: second });
    expect(current.code).toBe(0);
  });

  it('answers 99990 for unknown, logged-out and expired tokens', async () => {
    const unknown = await call(t.app, 'GET', '/api/vue-admin-template/user/info?token=nonsense', undefined, { lang: 'zh' });
    expect(unknown).toMatchObject({ status: 401, code: 99990, message: '验证失败，请重新登录。' });
    const none = await call(t.app, 'GET', '/api/vue-admin-template/user/info');
    expect(none).toMatchObject({ code: 99990, message: 'Verification failed. Please sign in again.' });

    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    expect((await call(t.app, 'POST', '/api/logout', undefined, { token })).code).toBe(0);
    expect((await call(t.app, 'GET', '/api/profile', undefined, { token })).code).toBe(99990);
    expect((await call(t.app, 'POST', '/api/logout', undefined, { token })).code).toBe(99990);

    const later = await login(t.app, user.email, user.password);
    t.advance((t.config.sessionTtlS + 1) * 1000);
    try {
      expect((await call(t.app, 'GET', '/api/profile', undefined, { token: later })).code).toBe(99990);
    } finally {
      t.advance(-(t.config.sessionTtlS + 1) * 1000);
    }
  });
});

describe('verification code login', () => {
  const sendCode = (body: Record<string, string>, lang?: string) =>
    call<Static<typeof SendCodeData>>(t.app, 'POST', '/api/email_or_phone/send_code', body, { lang, form: true });
  const codeLogin = (body: Record<string, string>, lang?: string) =>
    call<LoginData>(t.app, 'POST', '/api/email_or_phone/login', body, { lang, form: true });
  const latestCode = async (email: string) => {
    const [mail] = await outbox(t.app, email);
    return /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1] ?? '';
  };

  it('mails a 6-digit code that signs in once', async () => {
    const { user } = await createUser(t.app);
    const sent = await sendCode({ email: user.email });
    expect(sent).toMatchObject({ code: 0, data: { resendAfterS: Limits.codeResendS } });
    const code = await latestCode(user.email);
    expect(code).toMatch(/^\d{6}$/);
    const r = await codeLogin({ email: ` ${user.email.toUpperCase()} `, code });
    expect(r).toMatchObject({ code: 0, data: { email: user.email } });
    expect((await codeLogin({ email: user.email, code })).code).toBe(Errors.badCode.code);
  });

  it('allows a new code only after 60 s and says how long to wait', async () => {
    const { user } = await createUser(t.app);
    expect((await sendCode({ email: user.email })).code).toBe(0);
    t.advance(15_000);
    try {
      const soon = await sendCode({ email: user.email }, 'de');
      expect(soon).toMatchObject({ status: 429, code: Errors.codeResendTooSoon.code, data: { resendAfterS: 45 } });
      expect(soon.message).toBe('Bitte warten Sie 45 s, bevor Sie einen neuen Code anfordern.');
      t.advance(45_000);
      expect((await sendCode({ email: user.email })).code).toBe(0);
    } finally {
      t.advance(-60_000);
    }
  });

  it('checks the code format, expiry and the attempt budget', async () => {
    const { user } = await createUser(t.app);
    const bad = await codeLogin({ email: user.email, code: '12ab56' }, 'ru');
    expect(bad.code).toBe(Errors.badCode.code);
    expect(bad.message).toMatch(/код/i);
    expect((await codeLogin({ email: user.email, code: '1234567' })).code).toBe(Errors.badCode.code);
    const missing = await call(t.app, 'POST', '/api/email_or_phone/login', { email: user.email }, { form: true });
    expect(missing).toMatchObject({ code: Errors.fieldRequired.code, message: 'Verification code is required.' });

    await sendCode({ email: user.email });
    const code = await latestCode(user.email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < t.config.codeMaxAttempts; i++) {
      expect((await codeLogin({ email: user.email, code: wrong })).code).toBe(Errors.badCode.code);
    }
    // The budget is spent: even the right code no longer works.
    expect((await codeLogin({ email: user.email, code })).code).toBe(Errors.badCode.code);

    t.advance(Limits.codeResendS * 1000);
    try {
      await sendCode({ email: user.email });
      const fresh = await latestCode(user.email);
      t.advance((Limits.verificationCodeTtlS + 1) * 1000);
      expect((await codeLogin({ email: user.email, code: fresh })).code).toBe(Errors.badCode.code);
    } finally {
      t.advance(-(Limits.codeResendS + Limits.verificationCodeTtlS + 1) * 1000);
    }
  });

  it('answers an unregistered address like a registered one (account-enumeration.test.ts), phoneNotSupported and the account status', async () => {
    expect((await sendCode({ email: 'nobody@factory.test' })).code).toBe(0);
    expect(await outbox(t.app, 'nobody@factory.test')).toEqual([]);
    expect((await codeLogin({ email: 'nobody@factory.test', code: '123456' })).code).toBe(Errors.badCode.code);
    expect((await sendCode({ phone: '+49 170 1234567' })).code).toBe(Errors.phoneNotSupported.code);
    expect((await codeLogin({ phone: '+49 170 1234567', code: '123456' })).code).toBe(Errors.phoneNotSupported.code);
    expect((await sendCode({ email: 'bad-email' })).code).toBe(Errors.emailFormat.code);

    const { user } = await createUser(t.app, { approve: false });
    await sendCode({ email: user.email });
    const r = await codeLogin({ email: user.email, code: await latestCode(user.email) });
    expect(r).toMatchObject({ status: 403, code: Errors.accountUnderReview.code });
  });
});

describe('menus per role and deployment', () => {
  it('gives administrators the back office plus the user menus, without model development', async () => {
    const r = await passwordLogin(ADMIN.email, ADMIN.password);
    expect(r.data.role).toBe('1');
    expect(r.data.menus.map((m) => m.id)).toEqual(['backStage', 'models', 'secondaryDevelopment', 'account']);
    expect(r.data.menus[0]!.children!.map((c) => c.id)).toContain('enumManagement');
  });

  it('hides the private-deployment back-office entries', async () => {
    const p = await startApp({ deployment: 'private' });
    try {
      const r = await call<LoginData>(p.app, 'POST', '/api/login', { username: ADMIN.email, password: ADMIN.password });
      expect(r.data.isprivate).toBe(true);
      const backStage = r.data.menus.find((m) => m.id === 'backStage')!.children!.map((c) => c.id);
      expect(backStage).not.toContain('enumManagement');
      expect(backStage).not.toContain('operatorManagement');
      expect(backStage).not.toContain('adjustmentRecord');
      expect(backStage).not.toContain('authorization');
      expect(backStage).toContain('userManagement');
    } finally {
      await p.close();
    }
  });
});
