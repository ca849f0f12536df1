import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, Limits } from '@loupe/contracts';
import { call, createUser, login, outbox, startApp, tokenOfLink, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('forgot and reset password', () => {
  it('mails a single-use link that sets a new password and ends the old session', async () => {
    const { user } = await createUser(t.app);
    const session = await login(t.app, user.email, user.password);
    expect((await call(t.app, 'POST', '/api/password/forgot', { email: user.email.toUpperCase() })).code).toBe(0);
    const [mail] = await outbox(t.app, user.email);
    expect(mail?.link).toMatch(/^http:\/\/loupe\.test\/forget-set-password\?token=/);
    const token = tokenOfLink(mail!.link);

    expect((await call(t.app, 'POST', '/api/password/reset/check', { token })).code).toBe(0);
    const mismatch = await call(t.app, 'POST', '/api/password/reset', { token, password: 'Newpass1', confirmPassword: 'Newpass2' });
    expect(mismatch.code).toBe(Errors.passwordsDoNotMatch.code);
    const ok = await call(t.app, 'POST', '/api/password/reset', { token, password: 'Newpass1', confirmPassword: 'Newpass1' });
    expect(ok.code).toBe(0);

    const reused = await call(t.app, 'POST', '/api/password/reset', { token, password: 'Other123', confirmPassword: 'Other123' }, { lang: 'de' });
    expect(reused).toMatchObject({ code: Errors.resetLinkInvalid.code, message: 'Der Link zum Zurücksetzen ist ungültig oder abgelaufen.' });
    expect((await call(t.app, 'POST', '/api/password/reset/check', { token })).code).toBe(Errors.resetLinkInvalid.code);

    expect((await call(t.app, 'GET', '/api/profile', undefined, { token: session })).code).toBe(99990);
    expect((await call(t.app, 'POST', '/api/login', { username: user.email, password: user.password })).code).toBe(
      Errors.badCredentials.code,
    );
    await login(t.app, user.email, 'Newpass1');
  });

  it('expires the link, and answers unknown addresses as it answers registered ones, without a mail', async () => {
    const unknown = await call(t.app, 'POST', '/api/password/forgot', { email: 'nobody@factory.test' }, { lang: 'zh' });
    expect(unknown).toMatchObject({ status: 200, code: 0 });
    expect(await outbox(t.app, 'nobody@factory.test')).toEqual([]);

    const { user } = await createUser(t.app);
    await call(t.app, 'POST', '/api/password/forgot', { email: user.email });
    const [mail] = await outbox(t.app, user.email);
    t.advance((Limits.resetTtlS + 1) * 1000);
    try {
      const r = await call(t.app, 'POST', '/api/password/reset', { token: tokenOfLink(mail!.link), password: 'Newpass1', confirmPassword: 'Newpass1' });
      expect(r).toMatchObject({ code: Errors.resetLinkInvalid.code, message: 'The reset link is invalid or has expired.' });
    } finally {
      t.advance(-(Limits.resetTtlS + 1) * 1000);
    }
  });
});

describe('change and set password', () => {
  it('checks the current password and the new one', async () => {
    const { user } = await createUser(t.app);
    const token = await login(t.app, user.email, user.password);
    const change = (body: Record<string, string>, lang?: string) => call(t.app, 'POST', '/api/password/change', body, { token, lang });

    const wrongOld = await change({ oldPassword: 'Nope12345', password: 'Fresh123', confirmPassword: 'Fresh123' }, 'ru');
    expect(wrongOld).toMatchObject({ code: Errors.wrongOldPassword.code, message: 'Текущий пароль неверен.' });
    const mismatch = await change({ oldPassword: user.password, password: 'Fresh123', confirmPassword: 'Fresh124' });
    expect(mismatch).toMatchObject({ code: Errors.passwordsDoNotMatch.code, message: 'The passwords do not match.' });
    expect((await change({ oldPassword: user.password, password: 'bad pass', confirmPassword: 'bad pass' })).code).toBe(
      Errors.passwordChars.code,
    );
    expect((await change({ oldPassword: user.password, password: 'Fresh123', confirmPassword: 'Fresh123' })).code).toBe(0);
    await login(t.app, user.email, 'Fresh123');

    const set = await call(t.app, 'POST', '/api/password/set', { password: 'Other123', confirmPassword: 'Other123' }, {
      token: await login(t.app, user.email, 'Fresh123'),
    });
    expect(set.code).toBe(Errors.passwordAlreadySet.code);
  });

  it('needs a session', async () => {
    const r = await call(t.app, 'POST', '/api/password/change', { oldPassword: 'a', password: 'b', confirmPassword: 'b' });
    expect(r.code).toBe(99990);
  });
});
