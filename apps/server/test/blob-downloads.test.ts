import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import type { ImageListData, UploadData } from '@loupe/contracts';
import { loadConfig } from '../src/config.js';
import { cspDirectives } from '../src/http/security-headers.js';
import { sweepOrphans } from '../src/services/gallery/blob-cleanup.js';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl } from './gallery-fixtures.js';
import { labeledStudio, start } from './training-fixtures.js';
import { startS3, type TestS3 } from './s3-server.js';

/**
 * Issue 34 item 1: with S3 storage, browsers fetch image and file bytes from short-lived signed URLs, never with
 * a session token in a URL. The API checks who asks first, then redirects loads whose bytes the page cannot
 * read (<img>, links); a script's fetch (the labeling canvas decodes the original with fetch) is streamed, so
 * the bucket needs no CORS. Also: the dataset export and the orphan sweep work against S3.
 */
const HOUR = 3600_000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let s3: TestS3;
let t: TestApp;
let token: string;
let cookie: string;
let other: string;
let modelId: number;
let png: Buffer;
let original: string;
let thumbnail: string;

const get = (app: TestApp, url: string, headers: Record<string, string> = {}) => app.app.inject({ method: 'GET', url, headers });

/** The files cookie a header-authenticated answer sets (what <img> and links send). */
async function filesCookie(app: TestApp, bearer: string, id: number): Promise<string> {
  const res = await get(app, `/api/models/${id}/images`, { 'x-token': bearer });
  const c = res.cookies.find((x) => x.name === 'loupe_files');
  if (!c) throw new Error('no files cookie');
  return `loupe_files=${c.value}`;
}

beforeAll(async () => {
  s3 = await startS3();
  const base = loadConfig({});
  t = await startApp({
    // No runner: the training row below only has to exist.
    jobConcurrency: 0,
    maintenance: { ...base.maintenance, sweepIntervalS: 0, graceS: 3600 },
    storage: {
      ...base.storage,
      s3: { endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true, prefix: '' },
      publicOrigin: s3.endpoint,
      signedUrlTtlS: 120,
    },
  });
  expect(t.app.deps.blobs.kind).toBe('s3');
  const alice = (await createUser(t.app)).user;
  token = await login(t.app, alice.email, alice.password);
  const bob = (await createUser(t.app)).user;
  other = await login(t.app, bob.email, bob.password);
  modelId = (await newModel(t.app, token)).id;
  png = await draw('png', 48, 40, 34);
  const up = await send<UploadData>(t.app, token, uploadUrl(modelId), [{ filename: 'part.png', data: png }]);
  expect(up.data.accepted, up.message).toBe(1);
  const list = await call<ImageListData>(t.app, 'GET', `/api/models/${modelId}/images`, undefined, { token });
  original = list.data.items[0]!.originalUrl;
  thumbnail = list.data.items[0]!.thumbnailUrl;
  cookie = await filesCookie(t, token, modelId);
}, 30_000);
afterAll(async () => {
  await t?.close();
  await s3?.stop();
});

describe('image bytes with S3 storage', () => {
  it('redirects an <img> load (no-cors) and a navigation to a signed URL that serves the bytes', async () => {
    for (const mode of ['no-cors', 'navigate']) {
      const res = await get(t, original, { cookie, 'sec-fetch-mode': mode });
      expect(res.statusCode, mode).toBe(302);
      const url = res.headers.location!;
      expect(url.startsWith(`${s3.endpoint}/`)).toBe(true);
      expect(url).not.toContain(token);
      expect(url).toMatch(/X-Amz-Signature=/);
      // Cached a little less than the URL stays valid (120 s), private to the account.
      expect(res.headers['cache-control']).toBe('private, max-age=108');
      expect(String(res.headers.vary)).toMatch(/sec-fetch-mode/i);
      const bytes = await fetch(url);
      expect(bytes.status).toBe(200);
      expect(bytes.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await bytes.arrayBuffer()).equals(png)).toBe(true);
    }
    // The same window answers the same URL, so the browser's cache of the image keeps working.
    const a = await get(t, thumbnail, { cookie, 'sec-fetch-mode': 'no-cors' });
    const b = await get(t, thumbnail, { cookie, 'sec-fetch-mode': 'no-cors' });
    expect(a.headers.location).toBe(b.headers.location);
    expect((await fetch(a.headers.location!)).headers.get('content-type')).toBe('image/jpeg');
  });

  it("streams a script's fetch (cors), a request with X-Token, and one without Fetch Metadata", async () => {
    const cases: Record<string, string>[] = [
      { cookie, 'sec-fetch-mode': 'cors' },
      { cookie, 'sec-fetch-mode': 'same-origin' },
      // The token would follow a redirect to the storage host.
      { 'x-token': token, 'sec-fetch-mode': 'no-cors' },
      { cookie },
    ];
    for (const headers of cases) {
      const res = await get(t, original, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers.etag).toBe(`"${sha(png)}"`);
      expect(res.rawPayload.equals(png)).toBe(true);
    }
  });

  it("checks the account before any redirect: another account's image is 404", async () => {
    const bobs = await filesCookie(t, other, (await newModel(t.app, other)).id);
    const res = await get(t, original, { cookie: bobs, 'sec-fetch-mode': 'no-cors' });
    expect(res.statusCode).toBe(404);
    expect(res.headers.location).toBeUndefined();
    expect((await get(t, original, { 'sec-fetch-mode': 'no-cors' })).statusCode).toBe(401);
  });

  it('exports the dataset ZIP with the image bytes read from S3', async () => {
    const res = await get(t, `/api/models/${modelId}/download/images?format=coco`, { 'x-token': token });
    expect(res.statusCode).toBe(200);
    const names = new Map<string, Buffer>();
    await new Promise<void>((resolve, reject) =>
      yauzl.fromBuffer(res.rawPayload, { lazyEntries: true }, (err, zip) => {
        if (err) return reject(err);
        zip.on('entry', (e: yauzl.Entry) =>
          zip.openReadStream(e, (e2, s) => {
            if (e2) return reject(e2);
            const parts: Buffer[] = [];
            s.on('data', (d: Buffer) => parts.push(d)).on('end', () => {
              names.set(e.fileName, Buffer.concat(parts));
              zip.readEntry();
            });
          }),
        );
        zip.on('end', resolve).on('error', reject);
        zip.readEntry();
      }),
    );
    const image = [...names].find(([n]) => n.endsWith('part.png'));
    expect(image?.[1].equals(png)).toBe(true);
  });
});

describe('orphan sweep with S3 storage', () => {
  it("removes old objects no row names, and keeps a training's checkpoint (trainings.checkpoint)", async () => {
    const studio = await labeledStudio(t.app, token, { count: 6 });
    const started = await start(t.app, token, studio.model.id);
    expect(started.code, started.message).toBe(0);
    const blobs = t.app.deps.blobs;
    const put = async (data: Buffer) => {
      const s = sha(data);
      await blobs.putBuffer(s, data);
      return s;
    };
    const last = await put(randomBytes(300));
    const best = await put(randomBytes(301));
    const orphan = await put(randomBytes(302));
    // More than a delete asks about: the sweep reads trainings' JSON columns in one scan.
    const more = await Promise.all(Array.from({ length: 24 }, (_, i) => put(randomBytes(400 + i))));
    await t.app.deps.db.updateTable('trainings').set({ checkpoint: JSON.stringify({ last, best }) }).where('id', '=', started.data.id).execute();
    // Two hours on: everything stored is past the grace period.
    t.advance(2 * HOUR);
    try {
      const r = await sweepOrphans(t.app.deps);
      expect(r.blobs).toBeGreaterThanOrEqual(25);
    } finally {
      t.advance(-2 * HOUR);
    }
    for (const s of [orphan, ...more]) expect(await blobs.exists(s), s).toBe(false);
    expect(await blobs.exists(last)).toBe(true);
    expect(await blobs.exists(best)).toBe(true);
    // Images, thumbnails, the snapshot's manifest stay.
    const rows = await t.app.deps.db.selectFrom('images').select(['sha256', 'thumb_sha']).execute();
    for (const r of rows) for (const s of [r.sha256, r.thumb_sha]) expect(await blobs.exists(s), s).toBe(true);
  }, 30_000);
});

describe('with files (no signed URLs)', () => {
  it('streams even a no-cors load, and the CSP names no storage origin', async () => {
    const local = await startApp();
    try {
      expect(local.app.deps.blobs.kind).toBe('fs');
      const u = (await createUser(local.app)).user;
      const bearer = await login(local.app, u.email, u.password);
      const m = await newModel(local.app, bearer);
      await send<UploadData>(local.app, bearer, uploadUrl(m.id), [{ filename: 'p.png', data: png }]);
      const list = await call<ImageListData>(local.app, 'GET', `/api/models/${m.id}/images`, undefined, { token: bearer });
      const res = await get(local, list.data.items[0]!.originalUrl, { cookie: await filesCookie(local, bearer, m.id), 'sec-fetch-mode': 'no-cors' });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(png)).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('allows the storage origin for images, media and fetches only when there is one', () => {
    expect(cspDirectives(null)).toEqual(cspDirectives());
    const d = cspDirectives('https://bucket.example.com:9000/some/path');
    expect(d.imgSrc).toContain('https://bucket.example.com:9000');
    expect(d.mediaSrc).toEqual(["'self'", 'https://bucket.example.com:9000']);
    expect(d.connectSrc).toContain('https://bucket.example.com:9000');
    expect(d.scriptSrc).toEqual(["'self'"]);
  });
});
