import { timingSafeEqual } from 'node:crypto';
import { Limits, type CodeLoginBody, type LoginBody, type LoginData, type SendCodeBody } from '@loupe/contracts';
import { fail, required } from '../errors.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomCode, sha256 } from './crypto.js';
import { renderMail } from './mail-templates.js';
import { assertCanSignIn, sendOrFail } from './registration.js';
import { checkCode, checkEmail, checkLoginPassword, looksLikeEmail, looksLikePhone, normalizeEmail } from './rules.js';
import { startSession } from './sessions.js';
import { loginData } from './user-view.js';

async function signIn(deps: Deps, user: User): Promise<LoginData> {
  assertCanSignIn(deps, user);
  const token = await startSession(deps, user);
  return loginData(deps.config, user, token);
}

/** POST /api/login: account (email) and password (SPEC §5: not empty, 6 to 32, username trimmed). */
export async function passwordLogin(deps: Deps, body: LoginBody): Promise<LoginData> {
  const username = (body.username ?? '').trim();
  if (!username) required('username');
  const password = checkLoginPassword(body.password);
  if (!looksLikeEmail(username)) fail(looksLikePhone(username) ? 'phoneNotSupported' : 'useEmailLogin');
  const user = await deps.users.findByEmail(normalizeEmail(username));
  if (!user?.password_hash || !(await deps.hasher.verify(user.password_hash, password))) fail('badCredentials');
  return signIn(deps, user);
}

/** Phones are accepted by the forms but not verified yet (SPEC §8: phone verification not yet supported). */
function emailOf(body: { email?: string; phone?: string }): string {
  if (!body.email?.trim() && body.phone?.trim()) fail('phoneNotSupported');
  return checkEmail('email', body.email);
}

/** POST /api/email_or_phone/send_code: a 6-digit code by mail, at most one per minute. */
export async function sendLoginCode(deps: Deps, body: SendCodeBody): Promise<{ resendAfterS: number }> {
  const email = emailOf(body);
  const user = await deps.users.findByEmail(email);
  if (!user) fail('emailNotRegistered');
  const now = deps.now();
  const last = await deps.tokens.latestCode(email);
  if (last) {
    const waitMs = last.created_at + Limits.codeResendS * 1000 - now;
    if (waitMs > 0) fail('codeResendTooSoon', { seconds: Math.ceil(waitMs / 1000) }, { resendAfterS: Math.ceil(waitMs / 1000) });
  }
  const code = randomCode();
  await deps.tokens.createCode(email, sha256(code), now, Limits.verificationCodeTtlS);
  const mail = renderMail(user.language, 'loginCode', { code, minutes: Math.round(Limits.verificationCodeTtlS / 60) });
  await sendOrFail(deps, { to: email, ...mail, link: null });
  return { resendAfterS: Limits.codeResendS };
}

/** POST /api/email_or_phone/login: the latest code, unexpired, unused, within its attempt budget. */
export async function codeLogin(deps: Deps, body: CodeLoginBody): Promise<LoginData> {
  const email = emailOf(body);
  const code = checkCode(body.code);
  const user = await deps.users.findByEmail(email);
  if (!user) fail('emailNotRegistered');
  const row = await deps.tokens.latestCode(email);
  if (!row || row.used_at !== null || row.expires_at <= deps.now() || row.attempts >= deps.config.codeMaxAttempts) {
    fail('badCode');
  }
  if (!timingSafeEqual(Buffer.from(row.code_hash), Buffer.from(sha256(code)))) {
    await deps.tokens.countAttempt(row.id);
    fail('badCode');
  }
  if (!(await deps.tokens.useCode(row.id, deps.now()))) fail('badCode');
  return signIn(deps, user);
}
