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
  if (!deps.blobs.has(sha)) {
    const temp = deps.blobs.tempPath();
    await fs.promises.copyFile(file, temp);
    await deps.blobs.putFile(sha, temp);
  }
  return sha;
}
