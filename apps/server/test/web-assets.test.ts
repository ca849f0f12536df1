import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from './helper.js';

/**
 * Issue 31 item 7: the web app's hashed files are cached for a year and sent compressed (the .br/.gz the build
 * wrote beside them); index.html, which names the current hashes, is asked for again on every visit.
 */
let t: TestApp;
let webDir: string;
const script = `console.log(${JSON.stringify('loupe '.repeat(400))});`;

beforeAll(async () => {
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loupe-web-assets-'));
  fs.mkdirSync(path.join(webDir, 'assets'));
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>');
  fs.writeFileSync(path.join(webDir, 'assets', 'index-abc123.js'), script);
  fs.writeFileSync(path.join(webDir, 'assets', 'index-abc123.js.br'), brotliCompressSync(script));
  fs.writeFileSync(path.join(webDir, 'assets', 'index-abc123.js.gz'), gzipSync(script));
  // A file the build did not compress (too small): sent as it is, cached all the same.
  fs.writeFileSync(path.join(webDir, 'assets', 'tiny-def456.js'), 'export const a = 1;');
  t = await startApp({ webDir });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(webDir, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('web app files', () => {
  it('sends a hashed script as brotli when the browser accepts it, cached for a year', async () => {
    const res = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(script);
  });

  it('falls back to gzip, then to the plain file', async () => {
    const gz = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);
    const plain = await get('/assets/index-abc123.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const tiny = await get('/assets/tiny-def456.js', { 'accept-encoding': 'br, gzip' });
    expect(tiny.statusCode).toBe(200);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.body).toBe('export const a = 1;');
    expect(tiny.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('has index.html revalidated, at / and through the SPA fallback alike', async () => {
    for (const url of ['/', '/index.html', '/agentList', '/train/detection']) {
      const res = await get(url, { 'accept-encoding': 'br, gzip' });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.body, url).toContain('/assets/index-abc123.js');
    }
  });

  it('answers a missing asset with 404, not the page', async () => {
    const res = await get('/assets/gone-000000.js', { 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(404);
  });
});
