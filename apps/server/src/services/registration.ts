import { Limits, Roles, type Language, type RegisterBody } from '@loupe/contracts';
import { fail } from '../errors.js';
import type { User } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomToken, sha256 } from './crypto.js';
import { renderMail } from './mail-templates.js';
import { checkEmail, checkNewPassword, checkPhone, optionalText, requireText } from './rules.js';
import { displayName } from './user-view.js';

/**
 * Registration by e-mail (SPEC §3, §5): the account starts `unactivated`, the mailed link activates it to
 * `pending` (under review), and an administrator approves or rejects it.
 */
export async function register(deps: Deps, body: RegisterBody, lang: Language): Promise<void> {
  // Checked in the order the form shows the fields, so the first problem is the one reported.
  const firstName = requireText('firstName', body.firstName);
  const lastName = requireText('lastName', body.lastName);
  const email = checkEmail('email', body.email);
  const password = checkNewPassword(body.password, body.confirmPassword);
  const company = requireText('company', body.company);
  const phone = checkPhone('phone', body.phone);
  const country = requireText('country', body.country);
  const jobTitle = optionalText('jobTitle', body.jobTitle);

  const now = deps.now();
  await deps.users.removeUnactivatedBefore(now - Limits.registrationTtlS * 1000);
  const existing = await deps.users.findByEmail(email);
  // Registering again replaces an unfinished registration: its link may have expired or been lost.
  if (existing && existing.status !== 'unactivated') fail('emailRegistered');
  const samePhone = await deps.users.findByPhone(phone);
  if (samePhone && samePhone.id !== existing?.id) fail('phoneRegistered');

  const passwordHash = await deps.hasher.hash(password);
  const row = {
    email,
    password_hash: passwordHash,
    first_name: firstName,
    last_name: lastName,
    company,
    company_id: '',
    phone,
    landline: '',
    country,
    job_title: jobTitle,
    role: Roles.user,
    status: 'unactivated' as const,
    language: body.language ?? lang,
    training_priority: 0,
    download_permission: 0,
    oidc_subject: null,
    guides_seen: '',
    created_at: now,
    activated_at: null,
    updated_at: now,
  };
  if (existing) await deps.users.remove(existing.id);
  const id = await deps.users.insert(row);
  await sendActivation(deps, { ...row, id });
}

async function sendActivation(deps: Deps, user: User): Promise<void> {
  const token = randomToken();
  const now = deps.now();
  await deps.tokens.useAllTokensOf(user.id, 'activate', now);
  await deps.tokens.createToken(user.id, 'activate', sha256(token), now, Limits.activationTtlS);
  const link = `${deps.config.publicUrl}/registered/check?token=${encodeURIComponent(token)}`;
  const mail = renderMail(user.language, 'activation', {
    name: displayName(user),
    link,
    hours: Math.round(Limits.activationTtlS / 3600),
  });
  await sendOrFail(deps, { to: user.email, ...mail, link });
}

/** A mail the user must receive to go on: a transport failure becomes emailSendFailed. */
export async function sendOrFail(
  deps: Deps,
  mail: { to: string; subject: string; text: string; link: string | null },
): Promise<void> {
  try {
    await deps.mailer.send(mail);
  } catch (err) {
    deps.log.error(err, 'sending mail failed');
    fail('emailSendFailed');
  }
}

function tooOld(deps: Deps, user: User): boolean {
  return deps.now() - user.created_at > Limits.registrationTtlS * 1000;
}

/** The link's token: unknown, used or expired → activationInvalid; too old a registration → registrationTooLong. */
export async function activate(deps: Deps, token: string): Promise<User> {
  const row = token ? await deps.tokens.findToken('activate', sha256(token)) : undefined;
  if (!row || row.used_at !== null) fail('activationInvalid');
  const user = await deps.users.findById(row.user_id);
  if (!user || user.status !== 'unactivated') fail('activationInvalid');
  if (tooOld(deps, user)) fail('registrationTooLong');
  if (row.expires_at <= deps.now()) fail('activationInvalid');
  if (!(await deps.tokens.useToken(row.id, deps.now()))) fail('activationInvalid');
  await deps.users.update(user.id, { status: 'pending', activated_at: deps.now(), updated_at: deps.now() });
  return { ...user, status: 'pending' };
}

/** A new activation link for an unfinished registration. */
export async function resendActivation(deps: Deps, rawEmail: string): Promise<void> {
  const email = checkEmail('email', rawEmail);
  const user = await deps.users.findByEmail(email);
  if (!user) fail('emailNotRegistered');
  if (user.status !== 'unactivated') fail('emailRegistered');
  if (tooOld(deps, user)) fail('registrationTooLong');
  await sendActivation(deps, user);
}

/** Whether an account may sign in; throws the status's own message otherwise. */
export function assertCanSignIn(deps: Deps, user: User): void {
  if (user.status === 'unactivated') fail(tooOld(deps, user) ? 'registrationTooLong' : 'accountNotActivated');
  if (user.status === 'pending') fail('accountUnderReview');
  if (user.status === 'rejected') fail('accountRejected');
}
