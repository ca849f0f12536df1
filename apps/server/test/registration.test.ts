import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, Limits } from '@loupe/contracts';
import { adminToken, call, createUser, newUser, outbox, startApp, tokenOfLink, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const register = (body: Record<string, unknown>, lang?: string) => call(t.app, 'POST', '/api/register', body, { lang });

describe('registration rules (SPEC §5)', () => {
  it.each([
    ['firstName', 'First name is required.'],
    ['lastName', 'Last name is required.'],
    ['company', 'Company is required.'],
    ['phone', 'Phone is required.'],
    ['country', 'Country is required.'],
    ['email', 'Email is required.'],
    ['password', 'Password is required.'],
  ])('requires %s', async (field, message) => {
    // A missing email key means sign-up by phone (tested below); a blank one is a missing field.
    if (field !== 'email') {
      const { [field]: _omit, ...body } = newUser() as Record<string, string>;
      const r = await register(body);
      expect(r).toMatchObject({ status: 400, code: Errors.fieldRequired.code, message });
    }
    const blank = await register({ ...newUser(), [field]: field === 'password' ? '' : '   ' });
    expect(blank.code).toBe(Errors.fieldRequired.code);
    expect(blank.message).toBe(message);
  });

  it('names the missing field in the caller language', async () => {
    const { company: _c, ...body } = newUser();
    expect((await register(body, 'zh')).message).toBe('公司 为必填项。');
    expect((await register(body, 'de')).message).toBe('Firma ist erforderlich.');
    expect((await register(body, 'ru')).message).toBe('Поле Компания обязательно.');
  });

  it('checks the email format', async () => {
    const r = await register(newUser({ email: 'not-an-email' }), 'de');
    expect(r).toMatchObject({ status: 400, code: Errors.emailFormat.code, message: 'Bitte geben Sie eine gültige E-Mail-Adresse ein.' });
  });

  it('checks the phone format', async () => {
    const r = await register(newUser({ phone: '12ab' }));
    expect(r).toMatchObject({ code: Errors.phoneFormat.code, message: 'Please enter a valid phone number.' });
  });

  it('wants 6 to 32 characters of letters and digits, confirmed', async () => {
    const short = await register(newUser({ password: 'abc12', confirmPassword: 'abc12' }));
    expect(short).toMatchObject({ code: Errors.passwordLength.code, message: 'The password must be 6 to 32 characters long.' });
    const long = 'a1'.repeat(17);
    expect((await register(newUser({ password: long, confirmPassword: long }))).code).toBe(Errors.passwordLength.code);
    const symbols = await register(newUser({ password: 'abc123!', confirmPassword: 'abc123!' }), 'zh');
    expect(symbols).toMatchObject({ code: Errors.passwordChars.code, message: '密码只能包含字母和数字。' });
    const mismatch = await register(newUser({ confirmPassword: 'Gears1844' }));
    expect(mismatch).toMatchObject({ code: Errors.passwordsDoNotMatch.code, message: 'The passwords do not match.' });
  });

  it('limits text fields to 100 characters', async () => {
    const r = await register(newUser({ company: 'x'.repeat(Limits.textMax + 1) }));
    expect(r).toMatchObject({ code: Errors.fieldTooLong.code, message: 'Company must be at most 100 characters.' });
  });

  it('answers phoneNotSupported for sign-up by phone', async () => {
    const { email: _e, ...body } = newUser();
    const r = await register(body);
    expect(r).toMatchObject({ code: Errors.phoneNotSupported.code, message: 'Phone verification is not yet supported.' });
  });

  it('refuses an email or a phone that is already registered', async () => {
    const { user } = await createUser(t.app, { approve: false });
    const sameEmail = await register(newUser({ email: user.email.toUpperCase() }));
    expect(sameEmail).toMatchObject({ status: 409, code: Errors.emailRegistered.code, message: 'This email is already registered.' });
    const samePhone = await register(newUser({ phone: user.phone.replace(/ /g, '-') }));
    expect(samePhone).toMatchObject({ status: 409, code: Errors.phoneRegistered.code, message: 'This phone number is already registered.' });
  });
});

describe('activation and review', () => {
  it('mails an activation link; the account is under review until approved', async () => {
    const user = newUser();
    expect((await register(user)).code).toBe(0);
    const [mail] = await outbox(t.app, user.email);
    expect(mail?.link).toMatch(/^http:\/\/loupe\.test\/registered\/check\?token=/);
    expect(mail?.text).toContain(mail!.link!);

    const early = await call(t.app, 'POST', '/api/login', { username: user.email, password: user.password });
    expect(early).toMatchObject({ status: 403, code: Errors.accountNotActivated.code });

    const a = await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mail!.link) });
    expect(a).toMatchObject({ code: 0, data: { status: 'pending' } });
    const again = await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mail!.link) });
    expect(again).toMatchObject({ code: Errors.activationInvalid.code, message: 'The activation link has expired or is invalid. Please register again.' });

    const pending = await call(t.app, 'POST', '/api/login', { username: user.email, password: user.password });
    expect(pending).toMatchObject({ code: Errors.accountUnderReview.code });
    expect(pending.message).toContain('24 hours');
  });

  it('rejects unknown and expired activation links', async () => {
    const unknown = await call(t.app, 'POST', '/api/register/activate', { token: 'nope' }, { lang: 'ru' });
    expect(unknown.code).toBe(Errors.activationInvalid.code);
    expect(unknown.message).toMatch(/ссылка/i);

    const { user } = await createUser(t.app, { activate: false });
    const [mail] = await outbox(t.app, user.email);
    t.advance((Limits.activationTtlS + 1) * 1000);
    try {
      const r = await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mail!.link) });
      expect(r.code).toBe(Errors.activationInvalid.code);
    } finally {
      t.advance(-(Limits.activationTtlS + 1) * 1000);
    }
  });

  it('lets an unfinished registration start again with the same email', async () => {
    const { user } = await createUser(t.app, { activate: false });
    const r = await register({ ...user, firstName: 'Augusta' });
    expect(r.code).toBe(0);
    const mails = await outbox(t.app, user.email);
    expect(mails).toHaveLength(2);
    // Only the newest link works.
    expect((await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mails[1]!.link) })).code).toBe(
      Errors.activationInvalid.code,
    );
    expect((await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(mails[0]!.link) })).code).toBe(0);
  });

  it('answers registrationTooLong when the registration is older than allowed', async () => {
    const { user } = await createUser(t.app, { activate: false });
    const days = (Limits.registrationTtlS - 3600) * 1000;
    t.advance(days);
    try {
      // A link resent near the end of the allowed time is still fresh, but the registration is not.
      expect((await call(t.app, 'POST', '/api/register/resend', { email: user.email })).code).toBe(0);
      const [fresh] = await outbox(t.app, user.email);
      t.advance(2 * 3600 * 1000);
      const r = await call(t.app, 'POST', '/api/register/activate', { token: tokenOfLink(fresh!.link) });
      expect(r).toMatchObject({ code: Errors.registrationTooLong.code, message: 'Registration took too long. Please start again.' });
      const login = await call(t.app, 'POST', '/api/login', { username: user.email, password: user.password });
      expect(login.code).toBe(Errors.registrationTooLong.code);
      expect((await call(t.app, 'POST', '/api/register/resend', { email: user.email })).code).toBe(Errors.registrationTooLong.code);
    } finally {
      t.advance(-days - 2 * 3600 * 1000);
    }
  });

  it('approves and rejects, telling the user by mail', async () => {
    const approved = await createUser(t.app);
    const mails = await outbox(t.app, approved.user.email);
    expect(mails[0]?.subject).toBe('Your Loupe account is approved');
    const ok = await call(t.app, 'POST', '/api/login', { username: approved.user.email, password: approved.user.password });
    expect(ok.code).toBe(0);

    const rejected = await createUser(t.app, { approve: false, overrides: { language: 'de' } });
    const r = await call(t.app, 'POST', `/api/admin/accounts/${rejected.id}/reject`, undefined, { token: await adminToken(t.app) });
    expect(r).toMatchObject({ code: 0, data: { status: 'rejected' } });
    const [notice] = await outbox(t.app, rejected.user.email);
    expect(notice?.subject).toBe('Ihre Loupe-Registrierung');
    const login = await call(t.app, 'POST', '/api/login', { username: rejected.user.email, password: rejected.user.password });
    expect(login).toMatchObject({ status: 403, code: Errors.accountRejected.code });
  });
});
