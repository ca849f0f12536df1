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
    if (fs.existsSync(target)) return false;
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
  };
}
