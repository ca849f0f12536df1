import { ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL } from './env.js';

/**
 * Direct calls to the real server, for what a spec needs but is not what it tests: reading the mail outbox and
 * preparing approved accounts. Paths are those of packages/contracts AuthPaths.
 */
interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export class ApiCallError extends Error {
  constructor(
    readonly path: string,
    readonly code: number,
    message: string,
  ) {
    super(`${path} answered code ${code}: ${message}`);
  }
}

export async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { Language: 'en' };
  if (token) headers['X-Token'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json()) as Envelope<T>;
  if (envelope.code !== 0) throw new ApiCallError(path, envelope.code, envelope.message);
  return envelope.data;
}

export async function login(email: string, password: string): Promise<string> {
  const data = await call<{ token: string }>('POST', '/api/login', { username: email, password });
  return data.token;
}

/**
 * Signing the admin in through the API ends any admin browser session (one active login per account, SPEC §6),
 * so each call signs in afresh rather than caching a token another spec may have invalidated.
 */
async function asAdmin<T>(fn: (token: string) => Promise<T>): Promise<T> {
  return fn(await login(ADMIN_EMAIL, ADMIN_PASSWORD));
}

export interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  link: string | null;
  createdAt: string;
}

export function outbox(to: string): Promise<OutboxMail[]> {
  return asAdmin((token) => call<OutboxMail[]>('GET', `/api/admin/outbox?to=${encodeURIComponent(to)}`, undefined, token));
}

/**
 * The newest mail to `to` whose link leads to `path` (the activation link is /registered/check), polled for a
 * while because sending may be asynchronous.
 */
export async function latestLink(to: string, path = '/registered/check', timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = (await outbox(to)).filter((m) => m.link && new URL(m.link).pathname === path);
    const newest = mails.sort((a, b) => b.id - a.id)[0];
    if (newest?.link) return newest.link;
    if (Date.now() > deadline) throw new Error(`No mail with a link to ${path} reached the outbox for ${to}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export interface NewUser {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  company: string;
  phone: string;
  country: string;
  jobTitle: string;
}

let counter = 0;
/** A user no other spec has registered: the e-mail carries the time and a counter. */
export function freshUser(tag: string): NewUser {
  counter += 1;
  const now = Date.now();
  const stamp = `${now.toString(36)}${counter}`;
  // Phones are unique per account too: nine digits from the clock and the counter.
  const digits = String(now * 100 + counter).slice(-9);
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `${tag}-${stamp}@factory.test`,
    password: 'Gears1843',
    company: 'Analytical Engines Ltd',
    phone: `+44 7${digits}`,
    country: 'United Kingdom',
    jobTitle: 'Quality engineer',
  };
}

interface AdminAccount {
  id: number;
  email: string;
  status: string;
}

export function accounts(): Promise<AdminAccount[]> {
  return asAdmin((token) => call<AdminAccount[]>('GET', '/api/admin/accounts', undefined, token));
}

/** Register, activate and approve through the API: the state a returning user is in. */
export async function createApprovedUser(tag: string): Promise<NewUser> {
  const user = freshUser(tag);
  await call('POST', '/api/register', { ...user, confirmPassword: user.password, language: 'en' });
  const link = new URL(await latestLink(user.email));
  const token = link.searchParams.get('token');
  if (!token) throw new Error(`The activation link has no token parameter: ${link.href}`);
  const activated = await call<{ status: string }>('POST', '/api/register/activate', { token });
  if (activated.status !== 'pending') throw new Error(`Activation left ${user.email} ${activated.status}, not pending`);
  await asAdmin(async (adminToken) => {
    const list = await call<AdminAccount[]>('GET', '/api/admin/accounts?status=pending', undefined, adminToken);
    const account = list.find((a) => a.email === user.email);
    if (!account) throw new Error(`${user.email} is not among the accounts pending review`);
    await call('POST', `/api/admin/accounts/${account.id}/approve`, {}, adminToken);
  });
  return user;
}

/** Create a model through the API with the user's token (the model list and dialog have their own spec). */
export function createModel(token: string, name: string, type: string): Promise<{ id: number; name: string }> {
  return call('POST', '/api/models', { name, type }, token);
}

/** Upload image files through the gallery's multipart endpoint (the upload wizard has its own spec). */
export async function uploadImages(token: string, modelId: number, files: { name: string; data: Buffer }[]): Promise<number[]> {
  const form = new FormData();
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.data)], { type: 'image/jpeg' }), f.name);
  const res = await fetch(`${BASE_URL}/api/models/${modelId}/images/upload`, {
    method: 'POST',
    headers: { Language: 'en', 'X-Token': token },
    body: form,
  });
  const envelope = (await res.json()) as Envelope<{ results: { name: string; imageId?: number; message?: string }[] }>;
  if (envelope.code !== 0) throw new ApiCallError('upload', envelope.code, envelope.message);
  return envelope.data.results.map((r) => {
    if (!r.imageId) throw new Error(`upload refused ${r.name}: ${r.message}`);
    return r.imageId;
  });
}

/**
 * The administrator's account setting that lets a user export and download models (SPEC §6); new accounts
 * start without it.
 */
export async function setDownloadPermission(email: string, allowed: boolean): Promise<void> {
  await asAdmin(async (adminToken) => {
    const list = await call<AdminAccount[]>('GET', '/api/admin/accounts', undefined, adminToken);
    const account = list.find((a) => a.email === email);
    if (!account) throw new Error(`${email} is not among the accounts`);
    await call('PUT', `/api/admin/accounts/${account.id}/settings`, { downloadPermission: allowed }, adminToken);
  });
}
