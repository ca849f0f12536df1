import {
  Roles,
  type AccountStatus,
  type AdminAccount,
  type AdminAccountSettingsBody,
  type AdminOutboxPageQuery,
  type OutboxMail,
  type OutboxPage,
  type OutboxResendData,
} from '@loupe/contracts';
import { fail } from '../errors.js';
import type { User, UserPatch } from '../db/users.js';
import type { Deps } from './deps.js';
import { randomPassword, sha256 } from './crypto.js';
import { renderMail } from './mail-templates.js';
import { resendActivation, sendOrFail } from './registration.js';
import type { OutboxRow } from '../db/outbox.js';
import { displayName } from './user-view.js';

function adminAccount(u: User): AdminAccount {
  return {
    id: u.id,
    email: u.email,
    firstName: u.first_name,
    lastName: u.last_name,
    company: u.company,
    phone: u.phone ?? '',
    country: u.country,
    jobTitle: u.job_title,
    status: u.status,
    role: u.role,
    createdAt: new Date(u.created_at).toISOString(),
    downloadPermission: u.download_permission === 1,
    trainingPriority: u.training_priority,
  };
}

export async function listAccounts(deps: Deps, status?: AccountStatus, search?: string): Promise<AdminAccount[]> {
  return (await deps.users.list(status, search?.trim() || undefined)).map(adminAccount);
}

/** Approve or reject an account that has been activated; the user is told by mail. */
export async function review(deps: Deps, id: number, decision: 'approved' | 'rejected'): Promise<AdminAccount> {
  const user = await deps.users.findById(id);
  if (!user) fail('notFound');
  if (user.role === Roles.admin) fail('forbidden');
  const allowedFrom: AccountStatus[] = decision === 'approved' ? ['pending', 'rejected'] : ['pending', 'approved'];
  if (!allowedFrom.includes(user.status)) fail('accountNotPending');
  await deps.users.update(id, { status: decision, updated_at: deps.now() });
  if (decision === 'rejected') await deps.sessions.endAllOf(id, 'revoked', deps.now());
  const link = decision === 'approved' ? `${deps.config.publicUrl}/signin` : null;
  const mail = renderMail(user.language, decision, { name: displayName(user), link: link ?? '' });
  try {
    await deps.mailer.send({ to: user.email, ...mail, link });
  } catch (err) {
    // The decision stands even if the notice could not be delivered; the admin sees it in the log.
    deps.log.error(err, 'review notice could not be sent');
  }
  return adminAccount({ ...user, status: decision });
}

/** Download permission and training priority are granted per account by the back office. */
export async function updateSettings(deps: Deps, id: number, body: AdminAccountSettingsBody): Promise<AdminAccount> {
  const user = await deps.users.findById(id);
  if (!user) fail('notFound');
  const patch: UserPatch = {};
  if (body.downloadPermission !== undefined) patch.download_permission = body.downloadPermission ? 1 : 0;
  if (body.trainingPriority !== undefined) patch.training_priority = body.trainingPriority;
  if (Object.keys(patch).length > 0) await deps.users.update(id, { ...patch, updated_at: deps.now() });
  return adminAccount({ ...user, ...patch } as User);
}

function outboxMail(r: OutboxRow): OutboxMail {
  return {
    id: r.id,
    to: r.to_address,
    subject: r.subject,
    text: r.text,
    link: r.link,
    createdAt: new Date(r.created_at).toISOString(),
  };
}

export async function listOutbox(deps: Deps, to?: string): Promise<OutboxMail[]> {
  return (await deps.outbox.list(to?.trim().toLowerCase() || undefined)).map(outboxMail);
}

/** The outbox page of /userManagement: a page of mails, newest first, and whether mail leaves the server at all. */
export async function outboxPage(deps: Deps, query: AdminOutboxPageQuery): Promise<OutboxPage> {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 20;
  const { rows, total } = await deps.outbox.page(query.q?.trim() || undefined, (page - 1) * pageSize, pageSize);
  return { items: rows.map(outboxMail), total, page, pageSize, transport: deps.mailer.kind };
}

/** The one-time link a mail is about, by the page it opens; other mails (approval notices) carry no token. */
const LINK_PURPOSES = { '/registered/check': 'activate', '/forget-set-password': 'reset' } as const;

function linkToken(link: string | null): { purpose: 'activate' | 'reset'; token: string } | null {
  if (!link) return null;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const purpose = LINK_PURPOSES[url.pathname as keyof typeof LINK_PURPOSES];
  return purpose ? { purpose, token: url.searchParams.get('token') ?? '' } : null;
}

/**
 * Sends an outbox mail again through the mailer (the outbox, or SMTP once it is configured). A mail whose link
 * still works goes out unchanged. An activation mail whose link expired (or was replaced) while the account is
 * still not activated gets a fresh link instead, the older links stop working, and the answer says so. Any other
 * dead link (used, a reset link replaced or expired, an account since activated or removed) is refused with
 * mailLinkDead: sending it again would only hand the user a link that fails; a user asks for a new reset link
 * on "Forgot password".
 */
export async function resendMail(deps: Deps, id: number): Promise<OutboxResendData> {
  const row = await deps.outbox.get(id);
  if (!row) fail('notFound');
  const same = { to: row.to_address, subject: row.subject, text: row.text, link: row.link };
  const linked = linkToken(row.link);
  if (!linked) {
    await sendOrFail(deps, same);
    return { freshLink: false };
  }
  const token = linked.token ? await deps.tokens.findToken(linked.purpose, sha256(linked.token)) : undefined;
  const owner = token ? await deps.users.findById(token.user_id) : await deps.users.findByEmail(row.to_address);
  const live = token && token.used_at === null && token.expires_at > deps.now();
  const stillUnactivated = owner?.status === 'unactivated';
  if (live && (linked.purpose === 'reset' || stillUnactivated)) {
    await sendOrFail(deps, same);
    return { freshLink: false };
  }
  if (linked.purpose === 'activate' && owner && stillUnactivated) {
    // Refuses a registration older than its allowed time (registrationTooLong), like the user's own resend.
    await resendActivation(deps, owner.email);
    return { freshLink: true };
  }
  fail('mailLinkDead');
}

/**
 * The first administrator: from LOUPE_ADMIN_EMAIL / LOUPE_ADMIN_PASSWORD, or generated and printed once
 * when no administrator exists yet. An existing account with that email is promoted, its password kept.
 */
export async function ensureFirstAdmin(deps: Deps, print: (line: string) => void): Promise<void> {
  const { adminEmail, adminPassword } = deps.config;
  if (!adminEmail && (await deps.users.hasAdmin())) return;
  const email = adminEmail ?? 'admin@loupe.local';
  const existing = await deps.users.findByEmail(email);
  const now = deps.now();
  if (existing) {
    if (existing.role !== Roles.admin || existing.status !== 'approved') {
      await deps.users.update(existing.id, { role: Roles.admin, status: 'approved', updated_at: now });
    }
    return;
  }
  const password = adminPassword ?? randomPassword();
  await deps.users.insert({
    email,
    password_hash: await deps.hasher.hash(password),
    first_name: 'Admin',
    last_name: '',
    company: '',
    company_id: '',
    phone: null,
    landline: '',
    country: '',
    job_title: '',
    role: Roles.admin,
    status: 'approved',
    language: 'en',
    training_priority: 0,
    download_permission: 1,
    oidc_subject: null,
    created_at: now,
    activated_at: now,
    updated_at: now,
  });
  if (!adminPassword) print(`Loupe: created the first administrator ${email} with password ${password} (shown once).`);
}
