import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { Errors } from '@loupe/contracts';
import { startApp, type TestApp } from './helper.js';

/** Issue 30 item 3: security headers on every answer, API, static web app, SPA fallback and errors alike. */
let t: TestApp;
let webDir: string;

beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-web-'));
  fs.mkdirSync(path.join(webDir, 'assets'));
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/app.js"></script></head><body><div id="root"></div></body></html>');
  fs.writeFileSync(path.join(webDir, 'assets', 'app.js'), 'console.log("loupe");');
  t = await startApp({ webDir, trustProxy: true, rateLimit: { max: 1000, authMax: 3, windowMs: 60_000 } });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

function directives(res: LightMyRequestResponse): Map<string, string> {
  const csp = String(res.headers['content-security-policy'] ?? '');
  return new Map(csp.split(';').map((d) => d.trim()).filter(Boolean).map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')]));
}

function expectSecure(res: LightMyRequestResponse, what: string): void {
  const csp = directives(res);
  expect(csp.get('script-src'), what).toBe("'self'");
  expect(csp.get('frame-ancestors'), what).toBe("'none'");
  expect(csp.get('object-src'), what).toBe("'none'");
  expect(csp.get('default-src'), what).toBe("'self'");
  expect(csp.get('img-src'), what).toContain('blob:');
  expect(res.headers['x-content-type-options'], what).toBe('nosniff');
  expect(res.headers['referrer-policy'], what).toBe('no-referrer');
  expect(res.headers['x-frame-options'], what).toBe('DENY');
  // Plain http here: HSTS would be a promise this server cannot keep.
  expect(res.headers['strict-transport-security'], what).toBeUndefined();
}

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('security headers', () => {
  it('are on API answers, API errors, static files and the SPA fallback', async () => {
    const ok = await get('/api/health');
    expect(ok.statusCode).toBe(200);
    expectSecure(ok, 'api');
    const unsigned = await get('/api/models');
    expect(unsigned.statusCode).toBe(Errors.sessionInvalid.status);
    expectSecure(unsigned, 'api refusal');
    const missing = await get('/api/no-such-route');
    expect(missing.statusCode).toBe(404);
    expectSecure(missing, 'api 404');
    const malformed = await t.app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json' }, payload: '{' });
    expect(malformed.statusCode).toBe(400);
    expectSecure(malformed, 'malformed body');
    const index = await get('/');
    expect(index.statusCode).toBe(200);
    expectSecure(index, 'index.html');
    const asset = await get('/assets/app.js');
    expect(asset.statusCode).toBe(200);
    expectSecure(asset, 'static asset');
    const spa = await get('/gallery/12?x=1');
    expect(spa.statusCode).toBe(200);
    expect(spa.body).toContain('<div id="root">');
    expectSecure(spa, 'SPA fallback');
  });

  it('are on a rate-limited answer too', async () => {
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 5; i++) {
      last = await t.app.inject({ method: 'POST', url: '/api/login', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.9' }, payload: '{"username":"a@b.test","password":"nope12"}' });
    }
    expect(last!.statusCode).toBe(Errors.tooManyRequests.status);
    expectSecure(last!, '429');
  });

  it('add HSTS only when the request came over TLS (a trusted proxy says https)', async () => {
    const res = await get('/api/health', { 'x-forwarded-proto': 'https' });
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
    expect((await get('/', { 'x-forwarded-proto': 'https' })).headers['strict-transport-security']).toMatch(/^max-age=/);
  });

  it("give the API docs swagger-ui's own script hashes, but no framing and no inline script without a hash", async () => {
    const res = await get('/api/docs/');
    expect(res.statusCode).toBe(200);
    const csp = directives(res);
    expect(csp.get('frame-ancestors')).toBe("'none'");
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it("the web app's page has no inline script, so script-src 'self' lets it run", () => {
    const html = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../web/index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc=/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son\w+=/i);
  });
});
