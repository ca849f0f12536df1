import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { PretrainedListData } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Deps } from '../deps.js';

/**
 * `pretrained` (issue 30 item 1). The parameter holds the id of one of the caller's own succeeded trainings,
 * never a path: the server looks the id up, checks that the training's model belongs to the caller and that it
 * left weights (its best.pt in the blob store), and copies that blob into the job's folder. The engine only ever
 * sees that copy's path, written by the server into job.json. An id of another account answers like an unknown
 * one, so nobody learns which trainings exist. The task may differ: the engine copies the tensors whose names
 * and shapes match (a detector's backbone can start a classifier) and says how many it took.
 */

/** The file name of the copy in the training's folder that the engine's job spec points at. */
export const PRETRAINED_FILE = 'pretrained.pt';

interface Source {
  trainingId: number;
  version: number;
  modelName: string;
  sha: string;
}

const bestOf = (artifacts: string): string | undefined => {
  try {
    const best = (JSON.parse(artifacts) as Record<string, unknown>).best;
    return typeof best === 'string' && /^[0-9a-f]{64}$/.test(best) ? best : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The weights `value` names for the account `ownerId`, or null for '' (from scratch). Refuses with
 * pretrainedNotFound (unknown id, or a training of another account) or pretrainedNoWeights (not succeeded, or
 * its weights are gone).
 */
export async function resolvePretrained(deps: Deps, ownerId: number, value: unknown): Promise<Source | null> {
  if (value === undefined || value === '') return null;
  const id = typeof value === 'string' && /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : NaN;
  // Not digits: checkTrainingParams refuses it first; this is the last line should a caller skip that check.
  if (!Number.isSafeInteger(id)) fail('pretrainedNotFound', { id: String(value).slice(0, 40) });
  const row = await deps.db
    .selectFrom('trainings as t')
    .innerJoin('models as m', 'm.id', 't.model_id')
    .select(['t.id', 't.version', 't.status', 't.artifacts', 'm.owner_id', 'm.name'])
    .where('t.id', '=', id)
    .executeTakeFirst();
  if (!row || Number(row.owner_id) !== ownerId) fail('pretrainedNotFound', { id });
  const sha = row.status === 'succeeded' ? bestOf(row.artifacts) : undefined;
  if (!sha || !(await deps.blobs.exists(sha))) fail('pretrainedNoWeights', { version: `v${row.version}`, model: row.name });
  return { trainingId: row.id, version: row.version, modelName: row.name, sha };
}

/**
 * The engine's parameters for a training's job spec: the stored ones, with `pretrained` replaced by the path of
 * a copy of the named weights in `workDir` (a copy, so deleting the source model later cannot pull the file away
 * from a resume). A resume keeps the copy the first run made. Throws the catalogue error when the source is no
 * longer the owner's or has no weights.
 */
export async function engineParams(deps: Deps, ownerId: number, stored: Record<string, unknown>, workDir: string, resume: boolean): Promise<Record<string, unknown>> {
  const { pretrained, ...params } = stored;
  const copy = path.join(workDir, PRETRAINED_FILE);
  if (pretrained === undefined || pretrained === '') {
    await fs.promises.rm(copy, { force: true });
    return params;
  }
  if (!(resume && fs.existsSync(copy))) {
    const source = (await resolvePretrained(deps, ownerId, pretrained))!;
    const tmp = `${copy}.tmp`;
    // Streamed: a runner without the blob store's files (S3) writes the copy as it downloads.
    await pipeline(await deps.blobs.open(source.sha), fs.createWriteStream(tmp));
    await fs.promises.rename(tmp, copy);
  }
  return { ...params, pretrained: copy };
}

/** The caller's versions that `pretrained` may name (succeeded, with weights), newest first. */
export async function listPretrained(deps: Deps, ownerId: number): Promise<PretrainedListData> {
  const rows = await deps.db
    .selectFrom('trainings as t')
    .innerJoin('models as m', 'm.id', 't.model_id')
    .select(['t.id', 't.model_id', 't.version', 't.task', 't.artifacts', 't.ended_at', 'm.name'])
    .where('m.owner_id', '=', ownerId)
    .where('t.status', '=', 'succeeded')
    .orderBy('t.id', 'desc')
    .limit(500)
    .execute();
  return {
    items: rows
      .filter((r) => bestOf(r.artifacts) !== undefined)
      .map((r) => ({
        trainingId: r.id,
        modelId: r.model_id,
        modelName: r.name,
        version: `v${r.version}`,
        task: r.task,
        endedAt: r.ended_at === null ? null : new Date(Number(r.ended_at)).toISOString(),
      })),
  };
}
