import { timingSafeEqual } from 'node:crypto';
import { Limits, type CodeLoginBody, type LoginBody, type LoginData, type SendCodeBody } from '@loupe/contracts';
import { fail, required } from '../errors.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomCode, sha256 } from './crypto.js';
import { renderMail } from './mail-templates.js';
import { assertCanSignIn, sendOrFail } from './registration.js';
import { checkCode, checkEmail, checkLoginPassword, looksLikeEmail, looksLikePhone, normalizeEmail } from './rules.js';
import { assertNotLocked, clearFailures, recordFailure } from './lockout.js';
import { startSession } from './sessions.js';
import { loginData } from './user-view.js';

async function signIn(deps: Deps, user: User): Promise<LoginData> {
  assertCanSignIn(deps, user);
  const token = await startSession(deps, user);
  return loginData(deps.config, user, token);
}

const dummies = new WeakMap<Deps['hasher'], Promise<string>>();
function dummyHash(deps: Deps): Promise<string> {
  let h = dummies.get(deps.hasher);
  if (!h) {
    h = deps.hasher.hash(randomCode() + randomCode());
    dummies.set(deps.hasher, h);
  }
  return h;
}

/**
 * POST /api/login: account (email) and password (SPEC §5: not empty, 6 to 32, username trimmed). `address` is
 * the client's: failures lock the account with a backoff, for that address and, shorter, everywhere (lockout.ts).
 */
export async function passwordLogin(deps: Deps, body: LoginBody, address?: string): Promise<LoginData> {
  const username = (body.username ?? '').trim();
  if (!username) required('username');
  const password = checkLoginPassword(body.password);
  if (!looksLikeEmail(username)) fail(looksLikePhone(username) ? 'phoneNotSupported' : 'useEmailLogin');
  const account = normalizeEmail(username);
  await assertNotLocked(deps, account, address);
  const user = await deps.users.findByEmail(account);
  // An unknown account costs the same hash as a known one, so the answer's timing does not tell them apart.
  const hash = user?.password_hash ?? (await dummyHash(deps));
  if (!(await deps.hasher.verify(hash, password)) || !user?.password_hash) {
    await recordFailure(deps, account, address);
    fail('badCredentials');
  }
  await clearFailures(deps, account, address);
  return signIn(deps, user);
}

/** Phones are accepted by the forms but not verified yet (SPEC §8: phone verification not yet supported). */
function emailOf(body: { email?: string; phone?: string }): string {
  if (!body.email?.trim() && body.phone?.trim()) fail('phoneNotSupported');
  return checkEmail('email', body.email);
}

/**
 * POST /api/email_or_phone/send_code: a 6-digit code by mail, at most one per minute. An unregistered address
 * gets the same answer (and the same once-a-minute limit) but no mail, so the call tells nobody who is registered.
 */
export async function sendLoginCode(deps: Deps, body: SendCodeBody): Promise<{ resendAfterS: number }> {
  const email = emailOf(body);
  const user = await deps.users.findByEmail(email);
  const now = deps.now();
  const last = await deps.tokens.latestCode(email);
  if (last) {
    const waitMs = last.created_at + Limits.codeResendS * 1000 - now;
    if (waitMs > 0) fail('codeResendTooSoon', { seconds: Math.ceil(waitMs / 1000) }, { resendAfterS: Math.ceil(waitMs / 1000) });
  }
  const code = randomCode();
  await deps.tokens.createCode(email, sha256(code), now, Limits.verificationCodeTtlS);
  if (!user) return { resendAfterS: Limits.codeResendS };
  const mail = renderMail(user.language, 'loginCode', { code, minutes: Math.round(Limits.verificationCodeTtlS / 60) });
  await sendOrFail(deps, { to: email, ...mail, link: null });
  return { resendAfterS: Limits.codeResendS };
}

/**
 * POST /api/email_or_phone/login: the latest code, unexpired, unused, within its attempt budget. A wrong code
 * counts toward the account's lockout like a wrong password; an unregistered address is just a wrong code.
 */
export async function codeLogin(deps: Deps, body: CodeLoginBody, address?: string): Promise<LoginData> {
  const email = emailOf(body);
  const code = checkCode(body.code);
  await assertNotLocked(deps, email, address);
  const wrong = async (): Promise<never> => {
    await recordFailure(deps, email, address);
    return fail('badCode');
  };
  const user = await deps.users.findByEmail(email);
  const row = await deps.tokens.latestCode(email);
  if (!user || !row || row.used_at !== null || row.expires_at <= deps.now() || row.attempts >= deps.config.codeMaxAttempts) {
    return wrong();
  }
  if (!timingSafeEqual(Buffer.from(row.code_hash), Buffer.from(sha256(code)))) {
    await deps.tokens.countAttempt(row.id);
    return wrong();
  }
  if (!(await deps.tokens.useCode(row.id, deps.now()))) return wrong();
  await clearFailures(deps, email, address);
  return signIn(deps, user);
}
