import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type LoginData } from '@loupe/contracts';
import { createUser, outbox, startApp, type TestApp } from './helper.js';

/**
 * The per-account sign-in lockout (services/lockout.ts): per (account, address) after 3 failures here, 30 s
 * doubling up to 15 min; per account from all addresses after 6, 2 s doubling up to 60 s.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startApp({
    lockout: { addressFree: 3, addressBaseS: 30, addressCapS: 900, accountFree: 6, accountBaseS: 2, accountCapS: 60, forgetAfterS: 3600 },
  });
});
afterAll(() => t.close());

interface Answer {
  status: number;
  code: number;
  message: string;
  data: (LoginData & { retryAfterS?: number }) | null;
  retryAfter: string | undefined;
}

async function post(url: string, address: string, body: Record<string, string>, opts: { lang?: string; form?: boolean } = {}): Promise<Answer> {
  const res = await t.app.inject({
    method: 'POST',
    url,
    remoteAddress: address,
    headers: {
      'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...(opts.lang ? { language: opts.lang } : {}),
    },
    payload: opts.form ? new URLSearchParams(body).toString() : JSON.stringify(body),
  });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'] as string | undefined, ...(res.json() as Omit<Answer, 'status' | 'retryAfter'>) };
}

const login = (address: string, username: string, password: string, lang?: string) =>
  post('/api/login', address, { username, password }, { lang });

function expectLocked(r: Answer, seconds: number) {
  expect(r).toMatchObject({ status: 429, code: Errors.accountLocked.code });
  expect(r.data?.retryAfterS).toBeGreaterThan(seconds - 2);
  expect(r.data?.retryAfterS).toBeLessThanOrEqual(seconds);
  expect(r.retryAfter).toBe(String(Math.ceil(r.data!.retryAfterS!)));
}

/** Moves the clock on for the rest of the file: every test below uses its own accounts. */
const wait = (s: number) => t.advance(s * 1000);

describe('password sign-in lockout', () => {
  it('locks the account for the failing address with a doubling backoff, refuses even the right password while locked, and lets it in after', async () => {
    const { user } = await createUser(t.app);
    const A = '203.0.113.10';
    expect(await login(A, user.email, 'Wrong1234')).toMatchObject({ status: 401, code: Errors.badCredentials.code });
    expect(await login(A, user.email, 'Wrong1234')).toMatchObject({ code: Errors.badCredentials.code });
    // The third failure starts the lock and says so.
    const third = await login(A, user.email, 'Wrong1234');
    expectLocked(third, 30);
    expect(third.message).toBe('Too many failed sign-ins for this account. Please try again in 30 seconds.');

    // Locked: the right password is refused too, with the time left in the user's language.
    wait(10);
    const right = await login(A, user.email, user.password, 'de');
    expectLocked(right, 20);
    expect(right.message).toBe('Zu viele fehlgeschlagene Anmeldungen für dieses Konto. Bitte versuchen Sie es in 20 Sekunden erneut.');
    // Attempts while locked do not count: the lock did not grow.
    expectLocked(await login(A, user.email, 'Wrong1234'), 20);

    // Each failure after a lock doubles it: 60 s, then 120 s.
    wait(21);
    expectLocked(await login(A, user.email, 'Wrong1234'), 60);
    wait(59);
    expectLocked(await login(A, user.email, user.password), 1);
    wait(2);
    expectLocked(await login(A, user.email, 'Wrong1234'), 120);

    // After the backoff the right password works, and success starts the count again.
    wait(121);
    const ok = await login(A, user.email, user.password);
    expect(ok).toMatchObject({ status: 200, code: 0 });
    expect(ok.data?.token).toBeTruthy();
    expect(await login(A, user.email, 'Wrong1234')).toMatchObject({ code: Errors.badCredentials.code });
    expect((await login(A, user.email, user.password)).code).toBe(0);
  });

  it('does not lock the real user out from another address for long, nor at all from an address they signed in from', async () => {
    const { user } = await createUser(t.app);
    const attacker = '198.51.100.7';
    const home = '192.0.2.44';
    const travel = '192.0.2.99';
    // One attacking address: locked there for 30 s, 60 s, ...; the owner at home is not affected at all.
    for (let i = 0; i < 2; i++) await login(attacker, user.email, 'Guess0000');
    expectLocked(await login(attacker, user.email, 'Guess0000'), 30);
    expect((await login(home, user.email, user.password)).code).toBe(0);
    expectLocked(await login(attacker, user.email, user.password), 30);

    // Guesses spread over many addresses lock the account everywhere, but briefly: 2 s doubling, capped at 60 s.
    // The owner's sign-in at home did not give the attackers their free guesses back: 3 + 3 more lock it.
    const spread = (i: number) => `198.51.100.${100 + i}`;
    for (let i = 0; i < 2; i++) expect((await login(spread(i), user.email, 'Guess0000')).code).toBe(Errors.badCredentials.code);
    expectLocked(await login(spread(2), user.email, 'Guess0000'), 2);
    expectLocked(await login(travel, user.email, user.password), 2);
    let longest = 0;
    for (let i = 3; i < 11; i++) {
      wait(61);
      const r = await login(spread(i), user.email, 'Guess0000');
      expect(r.code).toBe(Errors.accountLocked.code);
      longest = Math.max(longest, r.data!.retryAfterS!);
      // From a new address the owner waits at most the cap, whatever the attackers do...
      const away = await login(travel, user.email, user.password);
      expect(away.code).toBe(Errors.accountLocked.code);
      expect(away.data!.retryAfterS).toBeLessThanOrEqual(60);
      // ...and from home, where they signed in before, not at all, even after a typo of their own.
      expect((await login(home, user.email, 'Typo12345')).code).toBe(Errors.badCredentials.code);
      expect((await login(home, user.email, user.password)).code).toBe(0);
    }
    expect(longest).toBe(60);
    wait(61);
    expect((await login(travel, user.email, user.password)).code).toBe(0);
  });

  it('counts and locks an unregistered address exactly like a registered one', async () => {
    const A = '203.0.113.77';
    const { user } = await createUser(t.app);
    const answers = async (email: string) => {
      const out: [number, number][] = [];
      for (let i = 0; i < 4; i++) {
        const r = await login(A, email, 'Wrong1234');
        out.push([r.status, r.code]);
      }
      return out;
    };
    expect(await answers('nobody.here@factory.test')).toEqual(await answers(user.email));
  });
});

describe('code sign-in lockout', () => {
  const sendCode = (address: string, email: string) => post('/api/email_or_phone/send_code', address, { email }, { form: true });
  const codeLogin = (address: string, email: string, code: string) => post('/api/email_or_phone/login', address, { email, code }, { form: true });

  it('counts wrong codes toward the same lock, and refuses the right code while locked', async () => {
    const { user } = await createUser(t.app);
    const A = '203.0.113.20';
    expect((await sendCode(A, user.email)).code).toBe(0);
    const [mail] = await outbox(t.app, user.email);
    const code = /\b(\d{6})\b/.exec(mail!.text)![1]!;
    const wrong = code === '000000' ? '111111' : '000000';
    expect((await codeLogin(A, user.email, wrong)).code).toBe(Errors.badCode.code);
    // A wrong password and a wrong code are failures of the same account.
    expect((await login(A, user.email, 'Wrong1234')).code).toBe(Errors.badCredentials.code);
    expectLocked(await codeLogin(A, user.email, wrong), 30);
    expectLocked(await codeLogin(A, user.email, code), 30);
    wait(31);
    const ok = await codeLogin(A, user.email, code);
    expect(ok).toMatchObject({ status: 200, code: 0 });
  });
});
