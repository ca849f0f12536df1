import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '../deps.js';

/**
 * A training works in DATA_DIR/trainings/<id>, not in its job's folder: the folder outlives a failed job so
 * the training can resume from RUN/last.pt with a new job. Success and cancel delete it.
 */
export function trainingDir(deps: Deps, trainingId: number): string {
  return path.join(deps.config.dataDir, 'trainings', String(trainingId));
}

/** The engine's per-epoch checkpoint (engine README: `RUN/last.pt`, written atomically every epoch). */
export function hasCheckpoint(deps: Deps, trainingId: number): boolean {
  return fs.existsSync(path.join(trainingDir(deps, trainingId), 'run', 'last.pt'));
}

export async function removeTrainingDir(deps: Deps, trainingId: number): Promise<void> {
  await fs.promises.rm(trainingDir(deps, trainingId), { recursive: true, force: true });
}
