import type { Deps } from '../deps.js';

/** Blobs are shared by content: delete a file only when no image row and no training snapshot still names it. */
export async function removeBlobsIfUnused(deps: Deps, shas: string[]): Promise<void> {
  const unused = await deps.images.unreferenced(shas);
  for (const sha of unused) await deps.blobs.remove(sha);
}
