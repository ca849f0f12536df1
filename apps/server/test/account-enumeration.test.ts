import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '@loupe/contracts';
import { PRODUCTION_HASHING } from '../src/config.js';
import { call, createUser, outbox, startApp, type TestApp } from './helper.js';

/** "Forgot password", "send code" and code sign-in tell nobody whether an e-mail address is registered. */
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

const forgot = (email: string, lang: string) => call(t.app, 'POST', '/api/password/forgot', { email }, { lang });
const sendCode = (email: string, lang: string) => call(t.app, 'POST', '/api/email_or_phone/send_code', { email }, { lang, form: true });
const codeLogin = (email: string, code: string, lang: string) =>
  call(t.app, 'POST', '/api/email_or_phone/login', { email, code }, { lang, form: true });

describe('account enumeration', () => {
  it.each(LANGUAGES)('forgot password answers a registered and an unregistered address alike (%s), and mails only the registered one', async (lang) => {
    const { user } = await createUser(t.app);
    const nobody = `nobody.${lang}.${Date.now()}@factory.test`;
    const registered = await forgot(user.email, lang);
    const unknown = await forgot(nobody, lang);
    expect(unknown).toEqual(registered);
    expect(registered).toMatchObject({ status: 200, code: 0 });
    expect((await outbox(t.app, user.email)).filter((m) => m.link?.includes('/forget-set-password'))).toHaveLength(1);
    expect(await outbox(t.app, nobody)).toEqual([]);
  });

  it.each(LANGUAGES)('send code answers alike (%s), the once-a-minute refusal included, and mails only the registered one', async (lang) => {
    const { user } = await createUser(t.app);
    const nobody = `nobody.code.${lang}.${Date.now()}@factory.test`;
    const before = (await outbox(t.app, user.email)).length;
    expect(await sendCode(nobody, lang)).toEqual(await sendCode(user.email, lang));
    const again = await sendCode(user.email, lang);
    expect(again.code).not.toBe(0);
    const strip = (r: typeof again) => ({ ...r, message: r.message.replace(/\d+/g, 'N'), data: null });
    expect(strip(await sendCode(nobody, lang))).toEqual(strip(again));
    expect(await outbox(t.app, nobody)).toEqual([]);
    expect(await outbox(t.app, user.email)).toHaveLength(before + 1);
  });

  it('code sign-in answers an unregistered address as a wrong code', async () => {
    const { user } = await createUser(t.app);
    const nobody = `nobody.login.${Date.now()}@factory.test`;
    await sendCode(nobody, 'en');
    expect(await codeLogin(nobody, '123456', 'ru')).toEqual(await codeLogin(user.email, '123456', 'ru'));
  });

  it('takes as long to refuse a password for an unknown account as for a known one (production hashing)', async () => {
    const slow = await startApp({ passwordHashing: PRODUCTION_HASHING });
    try {
      const { user } = await createUser(slow.app);
      const nobody = `nobody.timing.${Date.now()}@factory.test`;
      const once = async (username: string) => {
        const start = performance.now();
        const r = await call(slow.app, 'POST', '/api/login', { username, password: 'Wrong1234' });
        expect(r.code).toBe(10001);
        return performance.now() - start;
      };
      // Interleaved, so both see the same load from the tests beside this one (a training in another file once
      // slowed the known account's five tries alone), and compared by their medians.
      const known: number[] = [];
      const unknownMs: number[] = [];
      for (let i = 0; i < 9; i++) {
        known.push(await once(user.email));
        unknownMs.push(await once(nobody));
      }
      const median = (ms: number[]) => ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
      // Without the stand-in hash an unknown account answers in about 1 ms against some 30 ms.
      expect(median(unknownMs)).toBeGreaterThan(median(known) * 0.5);
    } finally {
      await slow.close();
    }
  });
});
