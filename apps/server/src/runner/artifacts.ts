import fs from 'node:fs';
import { createHash } from 'node:crypto';
import type { Deps } from '../services/deps.js';

export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Stores an engine output in the blob store (a copy: work folders are deleted afterwards); answers its hash. */
export async function keep(deps: Deps, file: string): Promise<string> {
  const sha = await hashFile(file);
  if (!(await deps.blobs.exists(sha))) {
    const temp = deps.blobs.tempPath();
    await fs.promises.copyFile(file, temp);
    await deps.blobs.putFile(sha, temp);
  }
  return sha;
}

/**
 * Puts a blob's bytes at `target` for the engine to read, without copying where it can: a hard link to the
 * store's file (fs) or to the local cache's copy (S3), so the S3 cache may evict its copy while a long training
 * still reads the bytes. Across file systems a symlink (fs: blobs never change) or a copy (S3: cache files go).
 */
export async function linkBlob(deps: Deps, sha: string, target: string): Promise<void> {
  const source = await deps.blobs.localFile(sha);
  try {
    await fs.promises.link(source, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    if (deps.blobs.kind === 'fs') await fs.promises.symlink(source, target);
    else await fs.promises.copyFile(source, target);
  }
}
