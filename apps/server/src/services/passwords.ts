import { Limits, type ChangePasswordBody, type ResetBody, type SetPasswordBody } from '@loupe/contracts';
import { fail, required } from '../errors.js';
import type { OneTimeToken } from '../db/tokens.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomToken, sha256 } from './crypto.js';
import { renderMail } from './mail-templates.js';
import { sendOrFail } from './registration.js';
import { checkEmail, checkNewPassword } from './rules.js';
import { displayName } from './user-view.js';

/**
 * Forgot password: a single-use, expiring link to /forget-set-password. An unregistered address gets the same
 * answer and no mail, so the call tells nobody who is registered (the page says "if this address is registered").
 */
export async function forgotPassword(deps: Deps, rawEmail: string | undefined): Promise<void> {
  const email = checkEmail('email', rawEmail);
  const user = await deps.users.findByEmail(email);
  if (!user) return;
  const token = randomToken();
  const now = deps.now();
  // Only the newest link works, so a forwarded older mail is useless.
  await deps.tokens.useAllTokensOf(user.id, 'reset', now);
  await deps.tokens.createToken(user.id, 'reset', sha256(token), now, Limits.resetTtlS);
  const link = `${deps.config.publicUrl}/forget-set-password?token=${encodeURIComponent(token)}`;
  const mail = renderMail(user.language, 'reset', {
    name: displayName(user),
    link,
    minutes: Math.round(Limits.resetTtlS / 60),
  });
  await sendOrFail(deps, { to: user.email, ...mail, link });
}

async function validResetToken(deps: Deps, token: string | undefined): Promise<OneTimeToken> {
  if (!token) required('token');
  const row = await deps.tokens.findToken('reset', sha256(token));
  if (!row || row.used_at !== null || row.expires_at <= deps.now()) fail('resetLinkInvalid');
  return row;
}

export async function checkResetToken(deps: Deps, token: string | undefined): Promise<void> {
  await validResetToken(deps, token);
}

/** Sets the new password and signs the account out everywhere. */
export async function resetPassword(deps: Deps, body: ResetBody): Promise<void> {
  const row = await validResetToken(deps, body.token);
  const password = checkNewPassword(body.password, body.confirmPassword);
  if (!(await deps.tokens.useToken(row.id, deps.now()))) fail('resetLinkInvalid');
  await deps.users.update(row.user_id, { password_hash: await deps.hasher.hash(password), updated_at: deps.now() });
  await deps.sessions.endAllOf(row.user_id, 'revoked', deps.now());
}

/** A signed-in account without a password (single sign-on) chooses one. */
export async function setPassword(deps: Deps, user: User, body: SetPasswordBody): Promise<void> {
  const password = checkNewPassword(body.password, body.confirmPassword);
  if (user.password_hash !== null) fail('passwordAlreadySet');
  await deps.users.update(user.id, { password_hash: await deps.hasher.hash(password), updated_at: deps.now() });
}

export async function changePassword(deps: Deps, user: User, body: ChangePasswordBody): Promise<void> {
  if (!body.oldPassword) required('oldPassword');
  const password = checkNewPassword(body.password, body.confirmPassword);
  if (!user.password_hash || !(await deps.hasher.verify(user.password_hash, body.oldPassword))) {
    fail('wrongOldPassword');
  }
  await deps.users.update(user.id, { password_hash: await deps.hasher.hash(password), updated_at: deps.now() });
}
