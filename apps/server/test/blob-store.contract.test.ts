import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobNotFound, fsBlobStore, type BlobStore } from '../src/adapters/blob-store.js';
import { s3BlobStore, type S3BlobOptions } from '../src/adapters/s3-blob-store.js';
import { startS3, type TestS3 } from './s3-server.js';

/**
 * The BlobStore port's contract: the embedded store (files) and the scale store (S3, here s3rver) behave the
 * same for everything the server and the runner rely on.
 */
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function tempWith(store: BlobStore, data: Buffer): string {
  const t = store.tempPath();
  fs.writeFileSync(t, data);
  return t;
}

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `loupe-blobs-${label}-`));
}

type Made = { store: BlobStore; done(): Promise<void> };

function contract(name: string, make: () => Promise<Made>) {
  describe(`BlobStore contract: ${name}`, () => {
    let made: Made;
    let store: BlobStore;
    beforeAll(async () => {
      made = await make();
      store = made.store;
    });
    afterAll(() => made?.done());

    it('stores bytes once under their sha and reads them back every way', async () => {
      const data = randomBytes(3000);
      const s = sha(data);
      expect(await store.exists(s)).toBe(false);
      expect(await store.size(s)).toBeNull();
      expect(await store.mtimeOf(s)).toBeNull();
      const first = tempWith(store, data);
      expect(await store.putFile(s, first)).toBe(true);
      expect(fs.existsSync(first)).toBe(false);
      expect(await store.exists(s)).toBe(true);
      expect(await store.size(s)).toBe(3000);
      expect((await store.readBuffer(s)).equals(data)).toBe(true);
      expect((await drain(await store.open(s))).equals(data)).toBe(true);
      expect(fs.readFileSync(await store.localFile(s)).equals(data)).toBe(true);

      const second = tempWith(store, data);
      expect(await store.putFile(s, second)).toBe(false);
      expect(fs.existsSync(second)).toBe(false);
      expect(await store.putBuffer(s, data)).toBe(false);
      expect(await store.tempFiles()).toEqual([]);
    });

    it('streams a 12 MB file in (multipart) and out', async () => {
      const data = randomBytes(12 * 2 ** 20);
      const s = sha(data);
      expect(await store.putFile(s, tempWith(store, data))).toBe(true);
      expect(await store.size(s)).toBe(data.length);
      expect(sha(await drain(await store.open(s)))).toBe(s);
      expect(sha(fs.readFileSync(await store.localFile(s)))).toBe(s);
    });

    it('answers BlobNotFound for a blob it does not have', async () => {
      const s = sha(randomBytes(8));
      await expect(store.open(s)).rejects.toBeInstanceOf(BlobNotFound);
      await expect(store.readBuffer(s)).rejects.toBeInstanceOf(BlobNotFound);
      await expect(store.localFile(s)).rejects.toBeInstanceOf(BlobNotFound);
    });

    it('shares one local file between concurrent callers', async () => {
      const data = randomBytes(50_000);
      const s = sha(data);
      await store.putBuffer(s, data);
      const [a, b] = await Promise.all([store.localFile(s), store.localFile(s)]);
      expect(a).toBe(b);
      expect(fs.readFileSync(a).equals(data)).toBe(true);
    });

    it('removes a blob, its local copy included', async () => {
      const data = randomBytes(100);
      const s = sha(data);
      await store.putBuffer(s, data);
      await store.localFile(s);
      await store.remove(s);
      expect(await store.exists(s)).toBe(false);
      await expect(store.localFile(s)).rejects.toBeInstanceOf(BlobNotFound);
      await store.remove(s); // removing twice is fine
    });

    it('makes a blob stored again young again (the orphan sweep counts from then)', async () => {
      const data = randomBytes(200);
      const s = sha(data);
      await store.putBuffer(s, data);
      const before = (await store.mtimeOf(s))!;
      await sleep(1100); // S3 LastModified has 1 s granularity
      expect(await store.putFile(s, tempWith(store, data))).toBe(false);
      const after = (await store.mtimeOf(s))!;
      expect(after).toBeGreaterThan(before);
      const listed = [];
      for await (const e of store.entries()) if (e.sha === s) listed.push(e.mtimeMs);
      expect(listed).toEqual([after]);
    });

    it('lists exactly the stored blobs', async () => {
      const stored: string[] = [];
      for await (const e of store.entries()) stored.push(e.sha);
      for (const s of stored) await store.remove(s);
      const fresh = [randomBytes(10), randomBytes(11), randomBytes(12)].map((d) => ({ d, s: sha(d) }));
      for (const { d, s } of fresh) await store.putBuffer(s, d);
      const listed: string[] = [];
      for await (const e of store.entries()) {
        expect(e.mtimeMs).toBeGreaterThan(Date.now() - 60_000);
        listed.push(e.sha);
      }
      expect(listed.sort()).toEqual(fresh.map((f) => f.s).sort());
    });

    it('refuses what is not a sha256 (no path or key injection)', async () => {
      for (const bad of ['../x', 'A'.repeat(64), `${'a'.repeat(63)}/`, '']) {
        await expect(store.exists(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.putBuffer(bad, Buffer.from('x'))).rejects.toThrow(/not a sha256/);
        const t = tempWith(store, Buffer.from('x'));
        await expect(store.putFile(bad, t)).rejects.toThrow(/not a sha256/);
        expect(fs.existsSync(t)).toBe(false);
        await expect(store.open(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.readBuffer(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.localFile(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.remove(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.mtimeOf(bad)).rejects.toThrow(/not a sha256/);
        await expect(store.signedUrl(bad, { contentType: 'image/png', expiresS: 60 })).rejects.toThrow(/not a sha256/);
      }
    });

    it('signs download URLs (S3) or has none (files)', async () => {
      const data = randomBytes(500);
      const s = sha(data);
      await store.putBuffer(s, data);
      const opts = { contentType: 'image/png', filename: 'Ünïcode "q" (1).png', expiresS: 300 };
      const url = await store.signedUrl(s, opts);
      if (store.kind === 'fs') {
        expect(url).toBeNull();
        return;
      }
      expect(url).toMatch(/^http/);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(data)).toBe(true);
      expect(res.headers.get('content-type')).toBe('image/png');
      const disposition = res.headers.get('content-disposition')!;
      expect(disposition).toContain('attachment; filename="_n_code _q_ (1).png"');
      expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)![1]!)).toBe(opts.filename);
      // The same arguments in one window: the same URL (browser caching); another blob: another URL.
      expect(await store.signedUrl(s, opts)).toBe(url);
      const other = sha(randomBytes(5));
      expect(await store.signedUrl(other, opts)).not.toBe(url);
      const inline = await store.signedUrl(s, { contentType: 'image/png', expiresS: 300 });
      expect((await fetch(inline!)).headers.get('content-disposition')).toBeNull();

      // s3rver enforces X-Amz-Expires (not the V4 signature itself): a URL signed for a 1 s window lives 2 s.
      const short = (await store.signedUrl(s, { contentType: 'image/png', expiresS: 1 }))!;
      expect((await fetch(short)).status).toBe(200);
      await sleep(2100);
      const expired = await fetch(short);
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain('Request has expired');
    });
  });
}

contract('files', async () => {
  const root = tempDir('fs');
  const store = fsBlobStore(root);
  return { store, done: async () => fs.rmSync(root, { recursive: true, force: true }) };
});

let s3: TestS3 | null = null;
const s3Options = (cacheDir: string, more: Partial<S3BlobOptions> = {}): S3BlobOptions => ({
  endpoint: s3!.endpoint,
  bucket: s3!.bucket,
  region: s3!.region,
  accessKeyId: s3!.accessKeyId,
  secretAccessKey: s3!.secretAccessKey,
  forcePathStyle: true,
  prefix: 'loupe/',
  cacheDir,
  cacheMaxBytes: 2 ** 30,
  partSizeBytes: 5 * 2 ** 20,
  ...more,
});

beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.stop();
});

contract('S3 (s3rver)', async () => {
  const cacheDir = tempDir('s3cache');
  const store = s3BlobStore(s3Options(cacheDir));
  return {
    store,
    done: async () => {
      await store.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    },
  };
});

describe('S3 BlobStore only', () => {
  it('evicts least recently used files, never one just handed out', async () => {
    const cacheDir = tempDir('s3lru');
    // Another prefix: a second deployment sharing the bucket sees none of the contract's blobs.
    const store = s3BlobStore(s3Options(cacheDir, { prefix: 'other/', cacheMaxBytes: 130 }));
    try {
      const blobs = Array.from({ length: 5 }, () => randomBytes(60)).map((d) => ({ d, s: sha(d) }));
      for (const { d, s } of blobs) await store.putBuffer(s, d);
      const [a, b, c, d, e] = blobs.map((x) => x.s) as [string, string, string, string, string];
      const fileA = await store.localFile(a);
      const fileB = await store.localFile(b); // 120 bytes: fits
      const ago = (ms: number) => new Date(Date.now() - ms);
      fs.utimesSync(fileA, ago(180_000), ago(180_000));
      fs.utimesSync(fileB, ago(120_000), ago(120_000));
      const fileC = await store.localFile(c); // 180: the oldest (a) goes
      expect([fs.existsSync(fileA), fs.existsSync(fileB), fs.existsSync(fileC)]).toEqual([false, true, true]);
      const fileD = await store.localFile(d); // 180: b goes
      expect(fs.existsSync(fileB)).toBe(false);
      const fileE = await store.localFile(e); // 180, but c, d and e were handed out this minute: all stay
      expect([fileC, fileD, fileE].map((f) => fs.existsSync(f))).toEqual([true, true, true]);
      expect(fs.readFileSync(await store.localFile(a)).equals(blobs[0]!.d)).toBe(true); // fetched again
      let listed = 0;
      for await (const entry of store.entries()) listed += blobs.some((x) => x.s === entry.sha) ? 1 : 0;
      expect(listed).toBe(5);
    } finally {
      await store.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('lists only <prefix>blobs/<aa>/<sha> keys, never strays or another prefix', async () => {
    const cacheDir = tempDir('s3stray');
    const store = s3BlobStore(s3Options(cacheDir, { prefix: 'stray/' }));
    const raw = new S3Client({
      endpoint: s3!.endpoint,
      region: s3!.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s3!.accessKeyId, secretAccessKey: s3!.secretAccessKey },
    });
    try {
      const data = randomBytes(30);
      const s = sha(data);
      await store.putBuffer(s, data);
      const other = sha(randomBytes(4));
      const wrongShard = other.slice(0, 2) === 'ff' ? '00' : 'ff';
      for (const key of [`stray/blobs/${wrongShard}/${other}`, `stray/blobs/${other.slice(0, 2)}/${other}/x`, `stray/blobs/${other}`, 'stray/notes.txt']) {
        await raw.send(new PutObjectCommand({ Bucket: s3!.bucket, Key: key, Body: 'x' }));
      }
      const listed: string[] = [];
      for await (const e of store.entries()) listed.push(e.sha);
      expect(listed).toEqual([s]);
    } finally {
      raw.destroy();
      await store.close();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
