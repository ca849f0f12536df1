import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '../deps.js';
import { removeBlobsIfUnused } from '../gallery/blob-cleanup.js';
import { keep } from '../../runner/artifacts.js';

/**
 * A training's last epoch checkpoint lives in the blob store (trainings.checkpoint = { last, best? } hashes), not
 * in a folder of the machine that trained it: any runner can resume it, after the user asks or after the runner
 * died (issue 34). The engine's run folder (`RUN/last.pt`, `RUN/best.pt`, written atomically every epoch) is the
 * runner's local scratch.
 */
export interface Checkpoint {
  last: string;
  best?: string;
}

export function checkpointOf(row: { checkpoint: string | null } | undefined): Checkpoint | null {
  if (!row?.checkpoint) return null;
  const c = JSON.parse(row.checkpoint) as Partial<Checkpoint>;
  return typeof c.last === 'string' ? { last: c.last, ...(typeof c.best === 'string' ? { best: c.best } : {}) } : null;
}

/** The blobs a checkpoint holds (the orphan sweep and deletes count them as used). */
export function checkpointShas(row: { checkpoint: string | null } | undefined): string[] {
  const c = checkpointOf(row);
  return c ? [c.last, ...(c.best ? [c.best] : [])] : [];
}

export async function hasCheckpoint(deps: Deps, trainingId: number): Promise<boolean> {
  return checkpointOf(await deps.trainings.byId(trainingId)) !== null;
}

/**
 * Stores the run folder's last.pt (and best.pt) as the training's checkpoint, then lets the previous epoch's
 * files go. Called after each epoch event: the engine saves before it reports the epoch.
 */
export async function saveCheckpoint(deps: Deps, trainingId: number, runDir: string): Promise<void> {
  const last = path.join(runDir, 'last.pt');
  if (!fs.existsSync(last)) return;
  const before = checkpointShas(await deps.trainings.byId(trainingId));
  const best = path.join(runDir, 'best.pt');
  const next: Checkpoint = { last: await keep(deps, last), ...(fs.existsSync(best) ? { best: await keep(deps, best) } : {}) };
  await deps.trainings.update(trainingId, { checkpoint: JSON.stringify(next) });
  const gone = before.filter((sha) => sha !== next.last && sha !== next.best);
  if (gone.length > 0) await removeBlobsIfUnused(deps, gone);
}

/** Lays the stored checkpoint out in a run folder for `train --resume`; false when there is none (or its bytes are gone). */
export async function restoreCheckpoint(deps: Deps, trainingId: number, runDir: string): Promise<boolean> {
  const c = checkpointOf(await deps.trainings.byId(trainingId));
  if (!c) return false;
  await fs.promises.mkdir(runDir, { recursive: true });
  for (const [name, sha] of [['last.pt', c.last], ['best.pt', c.best]] as const) {
    if (!sha) continue;
    if (!(await deps.blobs.exists(sha))) return false;
    // A copy: the engine replaces these files every epoch.
    await fs.promises.copyFile(await deps.blobs.localFile(sha), path.join(runDir, `${name}.part`));
    await fs.promises.rename(path.join(runDir, `${name}.part`), path.join(runDir, name));
  }
  return true;
}

/** Forgets a training's checkpoint (success, cancel, a failure that cannot resume, a deleted version) and its unused blobs. */
export async function dropCheckpoint(deps: Deps, trainingId: number): Promise<void> {
  const shas = checkpointShas(await deps.trainings.byId(trainingId));
  if (shas.length === 0) return;
  await deps.trainings.update(trainingId, { checkpoint: null });
  await removeBlobsIfUnused(deps, shas);
}

/**
 * Before issue 34 a failed training kept its checkpoint in DATA_DIR/trainings/<id>/run on the server's disk. At
 * start-up such folders move into the blob store, so those trainings stay resumable on any runner; then they go.
 */
export async function adoptLegacyCheckpoints(deps: Deps): Promise<number> {
  const root = path.join(deps.config.dataDir, 'trainings');
  const names = await fs.promises.readdir(root).catch(() => [] as string[]);
  let adopted = 0;
  for (const name of names) {
    if (!/^[1-9][0-9]{0,14}$/.test(name)) continue;
    const id = Number(name);
    const row = await deps.trainings.byId(id);
    // A failed one that could resume, or one a crashed server left running (the reaper will hand it to a runner).
    const wanted = row && !row.checkpoint && ((row.status === 'failed' && row.resumable === 1) || ['queued', 'preparing', 'training'].includes(row.status));
    if (row && wanted) {
      await saveCheckpoint(deps, id, path.join(root, name, 'run'));
      if (await hasCheckpoint(deps, id)) adopted += 1;
      else if (row.status === 'failed') await deps.trainings.update(id, { resumable: 0 });
    }
    await fs.promises.rm(path.join(root, name), { recursive: true, force: true });
  }
  await fs.promises.rmdir(root).catch(() => undefined);
  return adopted;
}
