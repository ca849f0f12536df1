import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type GetObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { attachment, BlobNotFound, checkSha, listTempFiles, SHA256, type BlobStore } from './blob-store.js';
import type { S3Config } from '../config.js';

/** Where and how the S3 adapter stores blobs: the bucket (config.ts S3Config, from S3_*) and the local cache. */
export interface S3BlobOptions extends S3Config {
  /** Local copies for localFile, and the local temp folder (<cacheDir>/tmp). */
  cacheDir: string;
  cacheMaxBytes: number;
  /** Multipart part size; 8 MiB by default, S3 refuses parts under 5 MiB. */
  partSizeBytes?: number;
}

/** A cached file handed out this recently may be open in a job right now: never evicted. */
const IN_USE_MS = 60_000;
/** S3 presigned URLs live at most 7 days; a URL lives two windows, so a window is at most half that. */
const MAX_WINDOW_S = 302_400;

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissing(err: unknown): boolean {
  const name = (err as { name?: string }).name;
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(err) === 404;
}

/**
 * The BlobStore on any S3-compatible store: keys `<prefix>blobs/<aa>/<sha>`, uploads stream from the temp file
 * (multipart above the part size), downloads stream, browsers fetch through presigned GET URLs, and jobs read
 * blobs as files from a local LRU cache. Nothing is kept in memory but the cache's bookkeeping.
 */
export function s3BlobStore(opts: S3BlobOptions): BlobStore {
  if ((opts.accessKeyId === null) !== (opts.secretAccessKey === null)) {
    throw new Error('S3: give both an access key id and a secret access key, or neither (the default credential chain)');
  }
  const client = new S3Client({
    region: opts.region,
    endpoint: opts.endpoint ?? undefined,
    forcePathStyle: opts.forcePathStyle,
    credentials:
      opts.accessKeyId !== null && opts.secretAccessKey !== null
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
        : undefined,
    // The SDK's default (CRC32 on every request, checked on every response) is refused or mishandled by many
    // S3-compatible servers; TLS already guards the bytes in flight, and localFile checks the sha256.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const bucket = opts.bucket;
  const partSize = opts.partSizeBytes ?? 8 * 2 ** 20;
  const keyOf = (sha: string) => `${opts.prefix}blobs/${checkSha(sha).slice(0, 2)}/${sha}`;
  const tmp = path.join(opts.cacheDir, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const tempPath = () => path.join(tmp, randomBytes(12).toString('hex'));

  async function head(sha: string) {
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(sha) }));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async function get(sha: string): Promise<GetObjectCommandOutput> {
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(sha) }));
    } catch (err) {
      if (isMissing(err)) throw new BlobNotFound(sha);
      throw err;
    }
  }

  /**
   * Stores `body` unless the blob is there: then it is only made young again (a copy onto itself gives it a new
   * LastModified) so the orphan sweep's grace period counts from now. When the copy fails (the blob was swept
   * meanwhile, or is over the 5 GB a single copy allows) the bytes are simply uploaded again.
   */
  async function place(sha: string, body: () => Readable | Buffer): Promise<boolean> {
    const key = keyOf(sha);
    const existed = (await head(sha)) !== null;
    if (existed) {
      try {
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: key,
            CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
            MetadataDirective: 'REPLACE',
          }),
        );
        return false;
      } catch {
        // fall through: upload again
      }
    }
    // leavePartsOnError false: lib-storage aborts a failed multipart upload, so no parts linger (and bill).
    const upload = new Upload({ client, params: { Bucket: bucket, Key: key, Body: body() }, partSize, queueSize: 4, leavePartsOnError: false });
    await upload.done();
    return !existed;
  }

  // The local cache: <cacheDir>/<aa>/<sha>. A file's mtime is when it was last handed out (LRU order).
  const downloads = new Map<string, Promise<string>>();
  let cacheBytes: number | null = null;
  let trimming: Promise<void> | null = null;
  const cachePathOf = (sha: string) => path.join(opts.cacheDir, checkSha(sha).slice(0, 2), sha);

  async function cachedFiles(): Promise<{ path: string; size: number; mtimeMs: number }[]> {
    const out: { path: string; size: number; mtimeMs: number }[] = [];
    for (const shard of await fs.promises.readdir(opts.cacheDir).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await fs.promises.readdir(path.join(opts.cacheDir, shard)).catch(() => [] as string[])) {
        if (!SHA256.test(name)) continue;
        const p = path.join(opts.cacheDir, shard, name);
        const st = await fs.promises.stat(p).catch(() => null);
        if (st?.isFile()) out.push({ path: p, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
    return out;
  }

  /** Deletes least recently used files until the cache fits (files in use stay, even over the limit). */
  async function trim(): Promise<void> {
    const files = await cachedFiles();
    let total = files.reduce((n, f) => n + f.size, 0);
    const now = Date.now();
    files.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of files) {
      if (total <= opts.cacheMaxBytes) break;
      if (now - f.mtimeMs < IN_USE_MS) continue;
      await fs.promises.rm(f.path, { force: true });
      total -= f.size;
    }
    cacheBytes = total;
  }

  async function added(bytes: number): Promise<void> {
    // The first download also counts what earlier runs left in the cache (the scan sees this file too).
    if (cacheBytes === null) cacheBytes = (await cachedFiles()).reduce((n, f) => n + f.size, 0);
    else cacheBytes += bytes;
    if (cacheBytes <= opts.cacheMaxBytes || trimming) return;
    trimming = trim().finally(() => {
      trimming = null;
    });
    await trimming;
  }

  async function download(sha: string): Promise<string> {
    const target = cachePathOf(sha);
    const res = await get(sha);
    const part = tempPath();
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      await pipeline(
        res.Body as Readable,
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            bytes += chunk.length;
            done(null, chunk);
          },
        }),
        fs.createWriteStream(part),
      );
      // The engine trusts these bytes: a cut or corrupted download must never become the cached copy.
      if (hash.digest('hex') !== sha) throw new Error(`S3: blob ${sha} downloaded with other bytes (sha256 mismatch)`);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(part, target);
    } catch (err) {
      await fs.promises.rm(part, { force: true });
      throw err;
    }
    await added(bytes);
    return target;
  }

  return {
    kind: 's3',
    putFile: async (sha, tempFile) => {
      try {
        return await place(sha, () => fs.createReadStream(tempFile));
      } finally {
        await fs.promises.rm(tempFile, { force: true });
      }
    },
    putBuffer: (sha, data) => place(sha, () => data),
    exists: async (sha) => (await head(sha)) !== null,
    async open(sha) {
      return (await get(sha)).Body as Readable;
    },
    async readBuffer(sha) {
      const res = await get(sha);
      return Buffer.from(await res.Body!.transformToByteArray());
    },
    size: async (sha) => {
      const h = await head(sha);
      return h ? (h.ContentLength ?? 0) : null;
    },
    async localFile(sha) {
      const file = cachePathOf(sha);
      // Touching it both checks it is cached and marks it in use (LRU order, and safe from trim a while).
      const now = new Date();
      if (await fs.promises.utimes(file, now, now).then(() => true, () => false)) return file;
      let pending = downloads.get(sha);
      if (!pending) {
        pending = download(sha).finally(() => downloads.delete(sha));
        downloads.set(sha, pending);
      }
      return pending;
    },
    async remove(sha) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(sha) }));
      const cached = await fs.promises.stat(cachePathOf(sha)).catch(() => null);
      if (cached) {
        await fs.promises.rm(cachePathOf(sha), { force: true });
        if (cacheBytes !== null) cacheBytes -= cached.size;
      }
    },
    tempPath,
    async signedUrl(sha, { contentType, filename, expiresS }) {
      // One URL per window of expiresS: browsers keep caching an image across page loads; signed at the
      // window's start and valid two windows, a URL handed out lives at least expiresS more seconds.
      const windowS = Math.min(Math.max(1, Math.floor(expiresS)), MAX_WINDOW_S);
      const w = windowS * 1000;
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: keyOf(sha),
        ResponseContentType: contentType,
        ResponseContentDisposition: filename === undefined ? undefined : attachment(filename),
      });
      return getSignedUrl(client, command, { expiresIn: 2 * windowS, signingDate: new Date(Math.floor(Date.now() / w) * w) });
    },
    mtimeOf: async (sha) => (await head(sha))?.LastModified?.getTime() ?? null,
    async *entries() {
      const under = `${opts.prefix}blobs/`;
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: under, ContinuationToken: token }));
        for (const obj of page.Contents ?? []) {
          // Only blobs/<aa>/<sha> with the sha's own shard: anything else under the prefix is not ours to sweep.
          const parts = (obj.Key ?? '').slice(under.length).split('/');
          const [shard, name] = parts;
          if (parts.length === 2 && shard && name && SHA256.test(name) && name.slice(0, 2) === shard && obj.LastModified) {
            yield { sha: name, mtimeMs: obj.LastModified.getTime() };
          }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    tempFiles: () => listTempFiles(tmp),
    close: async () => {
      client.destroy();
    },
  };
}
