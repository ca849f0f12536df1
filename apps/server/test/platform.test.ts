import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '@loupe/contracts';
import { call, startApp, type TestApp } from './helper.js';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
  // Registered before the first request, as a plugin of ours would be, to see what a crash looks like.
  t.app.get('/api/test/crash', async () => {
    throw new Error('database password is hunter2');
  });
});
afterAll(() => t.close());

describe('envelope and errors', () => {
  it('answers health and public config in the envelope', async () => {
    expect(await call(t.app, 'GET', '/api/health')).toEqual({ status: 200, code: 0, message: 'ok', data: { status: 'ok' } });
    const config = await call(t.app, 'GET', '/api/config');
    expect(config.data).toEqual({ deployment: 'cloud', oidc: false, version: '0.1.0' });
  });

  it('wraps unknown API paths in the envelope with 404', async () => {
    const r = await call(t.app, 'GET', '/api/does-not-exist', undefined, { lang: 'ru' });
    expect(r).toEqual({ status: 404, code: Errors.notFound.code, message: 'Не найдено.', data: null });
  });

  it('hides the internals of a 5xx', async () => {
    const r = await call(t.app, 'GET', '/api/test/crash', undefined, { lang: 'de' });
    expect(r.status).toBe(500);
    expect(r.code).toBe(Errors.internal.code);
    expect(r.message).toBe('Auf dem Server ist ein Fehler aufgetreten. Bitte versuchen Sie es erneut.');
    expect(JSON.stringify(r)).not.toContain('hunter2');
  });

  it('turns malformed JSON into a validation error in the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { 'content-type': 'application/json', language: 'zh-CN' },
      payload: '{"username":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: Errors.validation.code, message: '请求内容 的值无效：无法解析' });
  });

  it('serves the OpenAPI description at /api/docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/login', '/api/register', '/api/profile']));
    expect((await t.app.inject({ method: 'GET', url: '/api/docs' })).statusCode).toBeLessThan(400);
  });
});

describe('rate limiting', () => {
  it('answers tooManyRequests with 429 in the envelope, stricter on sign-in', async () => {
    const limited = await startApp({ rateLimit: { max: 50, authMax: 3, windowMs: 60_000 } });
    try {
      const attempt = () => call(limited.app, 'POST', '/api/login', { username: 'a@b.co', password: 'secret1' }, { lang: 'de' });
      for (let i = 0; i < 3; i++) expect((await attempt()).code).toBe(Errors.badCredentials.code);
      const blocked = await attempt();
      expect(blocked).toMatchObject({
        status: 429,
        code: Errors.tooManyRequests.code,
        message: 'Zu viele Anfragen. Bitte versuchen Sie es später erneut.',
        data: null,
      });
      // Other calls still pass under the general limit.
      expect((await call(limited.app, 'GET', '/api/health')).code).toBe(0);
    } finally {
      await limited.close();
    }
  });
});

describe('web app', () => {
  it('serves files from the built web app and index.html for client routes', async () => {
    const webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-web-'));
    fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Loupe</title>');
    fs.mkdirSync(path.join(webDir, 'assets'));
    fs.writeFileSync(path.join(webDir, 'assets', 'app.js'), 'console.log(1)');
    const web = await startApp({ webDir });
    try {
      const page = await web.app.inject({ method: 'GET', url: '/registered/check?token=abc' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<title>Loupe</title>');
      const asset = await web.app.inject({ method: 'GET', url: '/assets/app.js' });
      expect(asset.body).toBe('console.log(1)');
      const api = await web.app.inject({ method: 'GET', url: '/api/nothing' });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toMatchObject({ code: Errors.notFound.code });
    } finally {
      await web.close();
      fs.rmSync(webDir, { recursive: true, force: true });
    }
  });
});

describe('first administrator', () => {
  it('is generated and printed once when none is configured', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-first-admin-'));
    const first = await startApp({ adminEmail: null, adminPassword: null, dataDir });
    try {
      expect(first.printed).toHaveLength(1);
      const [, email, password] = /administrator (\S+) with password (\S+)/.exec(first.printed[0]!) ?? [];
      const r = await call(first.app, 'POST', '/api/login', { username: email, password });
      expect(r).toMatchObject({ code: 0, data: { role: '1' } });
    } finally {
      // On PostgreSQL the schema goes with the app; on SQLite the folder stays for the second start.
      if (process.env.DATABASE_URL) await first.close();
      else await first.app.close();
    }
    if (!process.env.DATABASE_URL) {
      // Same SQLite file again: an administrator exists, so nothing is printed.
      const second = await startApp({ adminEmail: null, adminPassword: null, dataDir });
      expect(second.printed).toEqual([]);
      await second.close();
    }
  });
});
