import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/**
 * Content-addressed files under DATA_DIR/blobs/<aa>/<sha256>. Writing the same bytes twice stores them
 * once; `put*` answers whether this call created the file, so a failed request deletes only what it added.
 */
export interface BlobStore {
  /** Moves a finished temp file into the store under its hash. */
  putFile(sha: string, tempFile: string): Promise<boolean>;
  putBuffer(sha: string, data: Buffer): Promise<boolean>;
  has(sha: string): boolean;
  pathOf(sha: string): string;
  read(sha: string): Readable;
  remove(sha: string): Promise<void>;
  /** A fresh path for a temp file on the same file system as the store (so putFile is a rename). */
  tempPath(): string;
  /** When the file was written or last stored again (ms), or null when there is none. */
  mtimeOf(sha: string): number | null;
  /** Every blob file, for the orphan sweep. */
  entries(): AsyncIterable<{ sha: string; mtimeMs: number }>;
  /** Temp files (uploads in progress, or left by a crash). */
  tempFiles(): Promise<{ path: string; mtimeMs: number }[]>;
}

const SHA = /^[0-9a-f]{64}$/;

export function fsBlobStore(root: string): BlobStore {
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const pathOf = (sha: string) => {
    if (!SHA.test(sha)) throw new Error(`not a sha256: ${sha}`);
    return path.join(root, sha.slice(0, 2), sha);
  };
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
  return {
    pathOf,
    has: (sha) => fs.existsSync(pathOf(sha)),
    putFile: async (sha, tempFile) => {
      const created = await place(sha, (target) => fs.promises.rename(tempFile, target));
      if (!created) await fs.promises.rm(tempFile, { force: true });
      return created;
    },
    putBuffer: (sha, data) =>
      place(sha, async (target) => {
        const t = path.join(tmp, randomBytes(12).toString('hex'));
        await fs.promises.writeFile(t, data);
        await fs.promises.rename(t, target);
      }),
    read: (sha) => fs.createReadStream(pathOf(sha)),
    remove: (sha) => fs.promises.rm(pathOf(sha), { force: true }),
    tempPath: () => path.join(tmp, randomBytes(12).toString('hex')),
    mtimeOf: (sha) => {
      try {
        return fs.statSync(pathOf(sha)).mtimeMs;
      } catch {
        return null;
      }
    },
    async *entries() {
      const shards = await fs.promises.readdir(root, { withFileTypes: true });
      for (const shard of shards) {
        if (!shard.isDirectory() || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
        for (const name of await fs.promises.readdir(path.join(root, shard.name))) {
          if (!SHA.test(name) || name.slice(0, 2) !== shard.name) continue;
          const st = await fs.promises.stat(path.join(root, shard.name, name)).catch(() => null);
          if (st?.isFile()) yield { sha: name, mtimeMs: st.mtimeMs };
        }
      }
    },
    async tempFiles() {
      const out: { path: string; mtimeMs: number }[] = [];
      for (const name of await fs.promises.readdir(tmp).catch(() => [] as string[])) {
        const p = path.join(tmp, name);
        const st = await fs.promises.stat(p).catch(() => null);
        if (st?.isFile()) out.push({ path: p, mtimeMs: st.mtimeMs });
      }
      return out;
    },
  };
}
