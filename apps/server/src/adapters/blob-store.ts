import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * The BlobStore port: immutable bytes under their sha256. Writing the same bytes twice stores them once; `put*`
 * answers whether this call created the blob, so a failed request deletes only what it added. Whether a blob is
 * still used is decided by the rows that name it (services/gallery/blob-cleanup.ts counts them under a guard
 * row), so deleting one image never removes bytes another image or another account still uses.
 *
 * - embedded (here): files under DATA_DIR/blobs/<aa>/<sha256>;
 * - scale (s3-blob-store.ts): any S3-compatible store (S3_*), browsers fetch through short-lived signed URLs.
 * Both pass test/blob-store.contract.test.ts.
 *
 * Temp files are always local (uploads are checked and hashed before they are stored); a job that needs a
 * blob as a file (the engine reads files) asks `localFile`, which the S3 adapter serves from a local cache.
 */
export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Stores a finished local temp file under its hash; the temp file is gone afterwards either way. */
  putFile(sha: string, tempFile: string): Promise<boolean>;
  putBuffer(sha: string, data: Buffer): Promise<boolean>;
  exists(sha: string): Promise<boolean>;
  /** The blob's bytes as a stream; rejects with a BlobNotFound error when there is none. */
  open(sha: string): Promise<Readable>;
  readBuffer(sha: string): Promise<Buffer>;
  /** Bytes of the blob, or null when there is none. */
  size(sha: string): Promise<number | null>;
  /**
   * A local file holding the blob's bytes, to be read and never written: fs answers the stored file itself; S3
   * downloads it once into its local cache (content-addressed, so a cached file is never stale).
   */
  localFile(sha: string): Promise<string>;
  remove(sha: string): Promise<void>;
  /** A fresh local path for a temp file (on the same file system as the fs store, so putFile is a rename). */
  tempPath(): string;
  /**
   * A URL a browser may GET the bytes from without any credential, valid about `expiresS` seconds, sent with
   * this content type and (when given) as a download named `filename`. null: the store has no such URL (fs),
   * so the API streams the bytes itself. The same arguments within one validity window answer the same URL, so
   * browsers keep caching an image.
   */
  signedUrl(sha: string, opts: { contentType: string; filename?: string; expiresS: number }): Promise<string | null>;
  /** When the blob was written or last stored again (ms), or null when there is none (the orphan sweep's age). */
  mtimeOf(sha: string): Promise<number | null>;
  /** Every blob, for the orphan sweep. */
  entries(): AsyncIterable<{ sha: string; mtimeMs: number }>;
  /** Local temp files (uploads in progress, or left by a crash). */
  tempFiles(): Promise<{ path: string; mtimeMs: number }[]>;
  close(): Promise<void>;
}

export class BlobNotFound extends Error {
  constructor(readonly sha: string) {
    super(`no blob ${sha}`);
  }
}

export const SHA256 = /^[0-9a-f]{64}$/;

/**
 * RFC 6266 attachment, sent by the API and signed into S3 URLs alike: an ASCII fallback name plus the exact UTF-8
 * one (model names may be Chinese or Russian; RFC 5987 leaves no room for '()*).
 */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export function checkSha(sha: string): string {
  if (!SHA256.test(sha)) throw new Error(`not a sha256: ${sha}`);
  return sha;
}

/** Local temp files of any store: DIR/<random hex>. */
export async function listTempFiles(tmp: string): Promise<{ path: string; mtimeMs: number }[]> {
  const out: { path: string; mtimeMs: number }[] = [];
  for (const name of await fs.promises.readdir(tmp).catch(() => [] as string[])) {
    const p = path.join(tmp, name);
    const st = await fs.promises.stat(p).catch(() => null);
    if (st?.isFile()) out.push({ path: p, mtimeMs: st.mtimeMs });
  }
  return out;
}

export function fsBlobStore(root: string): BlobStore {
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const pathOf = (sha: string) => path.join(root, checkSha(sha).slice(0, 2), sha);
  // 256 shard folders at most: remember the ones made so each put is not also a mkdir.
  const folders = new Set<string>();
  async function place(sha: string, write: (target: string) => Promise<void>): Promise<boolean> {
    const target = pathOf(sha);
    if (fs.existsSync(target)) {
      // Stored again: young once more, so the orphan sweep's grace period counts from now.
      const now = new Date();
      await fs.promises.utimes(target, now, now).catch(() => undefined);
      return false;
    }
    const dir = path.dirname(target);
    if (!folders.has(dir)) {
      await fs.promises.mkdir(dir, { recursive: true });
      folders.add(dir);
    }
    await write(target);
    return true;
  }
  const stat = (sha: string) => fs.promises.stat(pathOf(sha)).catch(() => null);
  return {
    kind: 'fs',
    exists: async (sha) => (await stat(sha))?.isFile() ?? false,
    putFile: async (sha, tempFile) => {
      try {
        return await place(sha, (target) => fs.promises.rename(tempFile, target));
      } finally {
        // Stored twice, refused (a bad sha) or failed: the temp file goes either way (after a rename, a no-op).
        await fs.promises.rm(tempFile, { force: true });
      }
    },
    putBuffer: (sha, data) =>
      place(sha, async (target) => {
        const t = path.join(tmp, randomBytes(12).toString('hex'));
        await fs.promises.writeFile(t, data);
        await fs.promises.rename(t, target);
      }),
    async open(sha) {
      const file = pathOf(sha);
      // Opened before answering, so a missing blob rejects here rather than erroring the stream later.
      const handle = await fs.promises.open(file, 'r').catch(() => null);
      if (!handle) throw new BlobNotFound(sha);
      return handle.createReadStream();
    },
    async readBuffer(sha) {
      return fs.promises.readFile(pathOf(sha)).catch(() => {
        throw new BlobNotFound(sha);
      });
    },
    size: async (sha) => (await stat(sha))?.size ?? null,
    async localFile(sha) {
      if (!(await stat(sha))) throw new BlobNotFound(sha);
      return pathOf(sha);
    },
    // async: a bad sha rejects like every other call instead of throwing before there is a promise.
    remove: async (sha) => fs.promises.rm(pathOf(sha), { force: true }),
    tempPath: () => path.join(tmp, randomBytes(12).toString('hex')),
    signedUrl: async (sha) => (checkSha(sha), null),
    mtimeOf: async (sha) => (await stat(sha))?.mtimeMs ?? null,
    async *entries() {
      const shards = await fs.promises.readdir(root, { withFileTypes: true });
      for (const shard of shards) {
        if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
        for (const name of await fs.promises.readdir(path.join(root, shard.name))) {
          if (!SHA256.test(name) || name.slice(0, 2) !== shard.name) continue;
          const st = await fs.promises.stat(path.join(root, shard.name, name)).catch(() => null);
          if (st?.isFile()) yield { sha: name, mtimeMs: st.mtimeMs };
        }
      }
    },
    tempFiles: () => listTempFiles(tmp),
    close: async () => undefined,
  };
}
