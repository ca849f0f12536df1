import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { LoginData, OutboxMail } from '@loupe/contracts';
import { loadConfig, type Config } from '../src/config.js';
import { buildApp, type AppOptions } from '../src/app.js';

export const ADMIN = { email: 'admin@loupe.test', password: 'Admin12345' };

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  /** Move time forward (ms) to expire links, codes and sessions. */
  advance(ms: number): void;
  printed: string[];
  close(): Promise<void>;
}

/**
 * A real server on a real database: SQLite in a temp folder, or, when DATABASE_URL is set, a fresh
 * PostgreSQL schema dropped after the run. Argon2 costs are lowered here only.
 */
export async function startApp(overrides: Partial<Config> = {}, appOptions: Pick<AppOptions, 'logStream' | 'onQuery'> = {}): Promise<TestApp> {
  const dataDir = overrides.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-server-test-'));
  const databaseUrl = process.env.DATABASE_URL || null;
  const schema = databaseUrl ? `t_${randomBytes(6).toString('hex')}` : null;
  const config: Config = {
    ...loadConfig({}),
    dataDir,
    databaseUrl,
    databaseSchema: schema,
    publicUrl: 'http://loupe.test',
    adminEmail: ADMIN.email,
    adminPassword: ADMIN.password,
    passwordHashing: { memoryCost: 64, timeCost: 1, parallelism: 1 },
    logLevel: 'silent',
    rateLimit: { max: 100_000, authMax: 100_000, windowMs: 60_000 },
    webDir: null,
    ...overrides,
  };
  let offset = 0;
  const printed: string[] = [];
  const app = await buildApp(config, { ...appOptions, now: () => Date.now() + offset, print: (l) => printed.push(l) });
  return {
    app,
    config,
    printed,
    advance: (ms) => {
      offset += ms;
    },
    async close() {
      // The PostgreSQL schema stays until global-setup.ts drops them all after the run.
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply<T = unknown> {
  status: number;
  code: number;
  message: string;
  data: T;
}

export interface CallOptions {
  token?: string;
  lang?: string;
  form?: boolean;
}

export async function call<T = unknown>(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
  opts: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = {};
  if (opts.lang) headers.language = opts.lang;
  if (opts.token) headers['x-token'] = opts.token;
  let payload: string | undefined;
  if (body !== undefined && opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body as Record<string, string>).toString();
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await app.inject({ method, url, headers, payload });
  const json = res.json() as { code: number; message: string; data: T };
  return { status: res.statusCode, ...json };
}

let seq = 0;
export function newUser(overrides: Record<string, string> = {}) {
  seq += 1;
  const id = `${Date.now().toString(36)}${seq}`;
  return {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada.${id}@factory.test`,
    password: 'Gears1843',
    confirmPassword: 'Gears1843',
    company: 'Analytical Engines',
    phone: `+44 20 ${String(1000000 + seq).slice(-7)}${String(Date.now()).slice(-3)}`,
    country: 'United Kingdom',
    jobTitle: 'Engineer',
    ...overrides,
  };
}

export async function adminToken(app: FastifyInstance): Promise<string> {
  const r = await call<LoginData>(app, 'POST', '/api/login', { username: ADMIN.email, password: ADMIN.password });
  if (r.code !== 0) throw new Error(`admin login failed: ${r.message}`);
  return r.data.token;
}

export async function outbox(app: FastifyInstance, to: string): Promise<OutboxMail[]> {
  const r = await call<OutboxMail[]>(app, 'GET', `/api/admin/outbox?to=${encodeURIComponent(to)}`, undefined, {
    token: await adminToken(app),
  });
  return r.data;
}

export function tokenOfLink(link: string | null | undefined): string {
  const token = link ? new URL(link).searchParams.get('token') : null;
  if (!token) throw new Error(`no token in ${link}`);
  return token;
}

/** Register, activate and (unless told otherwise) approve: a user who can sign in. */
export async function createUser(
  app: FastifyInstance,
  opts: { approve?: boolean; activate?: boolean; overrides?: Record<string, string> } = {},
) {
  const user = newUser(opts.overrides);
  const r = await call(app, 'POST', '/api/register', user);
  if (r.code !== 0) throw new Error(`register failed: ${r.message}`);
  const [mail] = await outbox(app, user.email);
  if (opts.activate === false) return { user, id: 0 };
  const a = await call(app, 'POST', '/api/register/activate', { token: tokenOfLink(mail?.link) });
  if (a.code !== 0) throw new Error(`activate failed: ${a.message}`);
  const list = await call<{ id: number; email: string }[]>(app, 'GET', '/api/admin/accounts?status=pending', undefined, {
    token: await adminToken(app),
  });
  const id = list.data.find((x) => x.email === user.email)!.id;
  if (opts.approve !== false) {
    await call(app, 'POST', `/api/admin/accounts/${id}/approve`, undefined, { token: await adminToken(app) });
  }
  return { user, id };
}

export async function login(app: FastifyInstance, username: string, password: string): Promise<string> {
  const r = await call<LoginData>(app, 'POST', '/api/login', { username, password });
  if (r.code !== 0) throw new Error(`login failed: ${r.message}`);
  return r.data.token;
}
