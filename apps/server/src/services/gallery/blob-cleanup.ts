import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../deps.js';
import { forgetOldFailures } from '../lockout.js';

/**
 * Blobs are content-addressed and shared: the same bytes uploaded by two accounts, a training's snapshot and a
 * gallery image, are one file. A file is deleted only when no row names it, and never from under an upload
 * that is storing the same bytes:
 *
 * - An upload *claims* each image's key (blob_guards.claims + 1, committed) before it places the file, and
 *   releases the claim once its rows have committed (or failed).
 * - A delete locks the key's guard row (an upsert, so the row exists to be locked), and inside that
 *   transaction skips the key while a claim is held, looks for references, and removes the unreferenced
 *   files before it commits. The claim and the check-and-remove thus serialise on one row (SQLite: the write
 *   lock; PostgreSQL: the row lock): either the delete ran first and the upload then writes the file anew,
 *   or the upload's claim is seen and the file stays.
 * A thumbnail goes with its image's key (groups below): an upload of the same image bytes claims the key
 * before it writes the thumbnail.
 *
 * What a crash leaves (files of uploads that never committed, temp files, claims never released) is swept at
 * start-up and every maintenance.sweepIntervalS, once older than maintenance.graceS.
 */

/** A key, or a key with the blobs that go with it (an image and its thumbnail). */
export type BlobGroup = string | string[];

/** Every column that names a blob: add a new blob user here, or the sweep deletes its files. */
async function referenced(d: Kysely<DB>, shas: string[]): Promise<Set<string>> {
  const used = new Set<string>();
  for (let i = 0; i < shas.length; i += 400) {
    const part = shas.slice(i, i + 400);
    const rows = await d
      .selectFrom('images')
      .select(['sha256', 'thumb_sha'])
      .where((eb) => eb.or([eb('sha256', 'in', part), eb('thumb_sha', 'in', part)]))
      .execute();
    for (const r of rows) used.add(r.sha256).add(r.thumb_sha);
    // A training snapshot keeps the bytes it trains on after its gallery image is deleted.
    for (const r of await d.selectFrom('snapshot_blobs').select('sha256').distinct().where('sha256', 'in', part).execute()) used.add(r.sha256);
    for (const r of await d.selectFrom('dataset_snapshots').select('manifest_sha').where('manifest_sha', 'in', part).execute()) used.add(r.manifest_sha);
    for (const r of await d.selectFrom('model_packs').select('artifact_sha').where('artifact_sha', 'in', part).execute()) used.add(r.artifact_sha!);
  }
  // trainings.artifacts ({ best, results }) and trainings.checkpoint ({ last, best? }, a failed or running
  // training's resume point) are JSON: few keys are asked by a delete, many by a sweep.
  const left = shas.filter((s) => !used.has(s));
  if (left.length > 0 && left.length <= 20) {
    for (const sha of left) {
      const hit = await d
        .selectFrom('trainings')
        .select('id')
        .where((eb) => eb.or([eb('artifacts', 'like', `%${sha}%`), eb('checkpoint', 'like', `%${sha}%`)]))
        .executeTakeFirst();
      if (hit) used.add(sha);
    }
  } else if (left.length > 0) {
    const wanted = new Set(left);
    const rows = await d
      .selectFrom('trainings')
      .select(['artifacts', 'checkpoint'])
      .where((eb) => eb.or([eb('artifacts', '!=', '{}'), eb('checkpoint', 'is not', null)]))
      .execute();
    for (const r of rows) {
      for (const json of [r.artifacts, r.checkpoint]) {
        if (!json) continue;
        for (const v of Object.values(JSON.parse(json) as Record<string, unknown>)) if (typeof v === 'string' && wanted.has(v)) used.add(v);
      }
    }
  }
  return used;
}

/**
 * Deletes a group's unreferenced files unless an upload holds a recent claim on its key. `stillRemovable`
 * is asked inside the transaction, just before the files go (the sweep re-checks a file's age there).
 */
async function removeGroup(deps: Deps, key: string, shas: string[], stillRemovable: (sha: string) => Promise<boolean> = async () => true): Promise<number> {
  const claimedSince = deps.now() - deps.config.maintenance.graceS * 1000;
  return deps.db.transaction().execute(async (trx) => {
    // Insert-or-touch: the row now exists and this transaction holds it until it commits.
    const guard = await trx
      .insertInto('blob_guards')
      .values({ sha256: key, claims: 0, claimed_at: 0 })
      .onConflict((oc) => oc.column('sha256').doUpdateSet({ claims: sql<number>`blob_guards.claims` }))
      .returning(['claims', 'claimed_at'])
      .executeTakeFirstOrThrow();
    // An upload is storing these bytes now; whatever it does not commit, a later sweep takes.
    if (Number(guard.claims) > 0 && Number(guard.claimed_at) > claimedSince) return 0;
    const used = await referenced(trx, shas);
    let removed = 0;
    for (const sha of shas) {
      if (used.has(sha) || !(await stillRemovable(sha))) continue;
      await deps.blobs.remove(sha);
      removed += 1;
    }
    await trx.deleteFrom('blob_guards').where('sha256', '=', key).execute();
    return removed;
  });
}

/** Deletes the files of these keys (and groups) that no row refers to any more. */
export async function removeBlobsIfUnused(deps: Deps, groups: BlobGroup[]): Promise<void> {
  const seen = new Set<string>();
  for (const g of groups) {
    const [key, ...rest] = typeof g === 'string' ? [g] : g;
    if (!key || seen.has(key)) continue;
    seen.add(key);
    await removeGroup(deps, key, [...new Set([key, ...rest])]);
  }
}

/** The claims one upload (or one training start) holds; release them once its rows have committed or failed. */
export function blobClaims(deps: Deps) {
  // How many claims this holder took on each key (an upload may hold the same bytes twice).
  const held = new Map<string, number>();
  return {
    /** Claim keys before their files are placed or named (committed at once, so a concurrent delete sees them). */
    async add(...shas: string[]): Promise<void> {
      const unique = [...new Set(shas)];
      for (let i = 0; i < unique.length; i += CLAIM_CHUNK) {
        const at = deps.now();
        const part = unique.slice(i, i + CLAIM_CHUNK);
        await deps.db
          .insertInto('blob_guards')
          .values(part.map((sha) => ({ sha256: sha, claims: 1, claimed_at: at })))
          .onConflict((oc) => oc.column('sha256').doUpdateSet({ claims: sql<number>`blob_guards.claims + 1`, claimed_at: at }))
          .execute();
        for (const sha of part) held.set(sha, (held.get(sha) ?? 0) + 1);
      }
    },
    async release(): Promise<void> {
      const byCount = new Map<number, string[]>();
      for (const [sha, n] of held) {
        const keys = byCount.get(n);
        if (keys) keys.push(sha);
        else byCount.set(n, [sha]);
      }
      held.clear();
      for (const [n, keys] of byCount) {
        for (let i = 0; i < keys.length; i += CLAIM_CHUNK) {
          const part = keys.slice(i, i + CLAIM_CHUNK);
          await deps.db.updateTable('blob_guards').set({ claims: sql<number>`claims - ${n}` }).where('sha256', 'in', part).where('claims', '>', 0).execute();
          await deps.db.deleteFrom('blob_guards').where('sha256', 'in', part).where('claims', '<=', 0).execute();
        }
      }
    },
  };
}

/** Keys per statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CLAIM_CHUNK = 300;

export interface SweepResult {
  blobs: number;
  temps: number;
}

/**
 * Removes what a crash left: blob files no row names and temp files, both older than the grace period and
 * than the oldest running job, claims never released, and golden-sample work folders. Also forgets old sign-in failures and expired codes.
 */
export async function sweepOrphans(deps: Deps): Promise<SweepResult> {
  const graceMs = deps.config.maintenance.graceS * 1000;
  // Claims of uploads that died with the process.
  await deps.db.deleteFrom('blob_guards').where('claimed_at', '<', deps.now() - graceMs).execute();
  // A running job keeps its outputs (a training's best checkpoint, hours before the training ends and records
  // it) in the store before any row names them: nothing written since the oldest running job began is swept.
  const running = await deps.db.selectFrom('jobs').select((eb) => eb.fn.min('started_at').as('since')).where('state', '=', 'running').executeTakeFirst();
  const since = running?.since === null || running?.since === undefined ? Infinity : Number(running.since);
  const cutoff = Math.min(deps.now() - graceMs, since);
  const old = async (sha: string) => {
    const m = await deps.blobs.mtimeOf(sha);
    return m !== null && m < cutoff;
  };
  let blobs = 0;
  let batch: string[] = [];
  const flush = async () => {
    const used = await referenced(deps.db, batch);
    for (const sha of batch) if (!used.has(sha)) blobs += await removeGroup(deps, sha, [sha], old);
    batch = [];
  };
  for await (const b of deps.blobs.entries()) {
    if (b.mtimeMs >= cutoff) continue;
    batch.push(b.sha);
    if (batch.length >= 500) await flush();
  }
  if (batch.length > 0) await flush();

  let temps = 0;
  for (const t of await deps.blobs.tempFiles()) {
    if (t.mtimeMs >= cutoff) continue;
    await fs.promises.rm(t.path, { force: true });
    temps += 1;
  }
  // Golden-sample measurements work in DATA_DIR/golden-* and remove it when done, unless the process died.
  const dataEntries = await fs.promises.readdir(deps.config.dataDir, { withFileTypes: true }).catch(() => []);
  for (const e of dataEntries) {
    if (!e.isDirectory() || !e.name.startsWith('golden-')) continue;
    const dir = path.join(deps.config.dataDir, e.name);
    const st = await fs.promises.stat(dir).catch(() => null);
    if (st && st.mtimeMs < cutoff) await fs.promises.rm(dir, { recursive: true, force: true });
  }
  await forgetOldFailures(deps);
  await deps.db.deleteFrom('login_codes').where('expires_at', '<', cutoff).execute();
  return { blobs, temps };
}

/**
 * Sweeps once now (awaited, so a restarted server starts clean) and then every sweepIntervalS; answers the
 * function that stops it, waiting for a sweep in progress.
 */
export async function startSweeps(deps: Deps): Promise<() => Promise<void>> {
  let running: Promise<unknown> | null = null;
  const run = () => {
    if (running) return running;
    running = sweepOrphans(deps)
      .then((r) => {
        if (r.blobs > 0 || r.temps > 0) deps.log.info(`orphan sweep removed ${r.blobs} blob files and ${r.temps} temp files`);
      })
      .catch((e: unknown) => deps.log.error(e, 'orphan sweep failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  await run();
  const every = deps.config.maintenance.sweepIntervalS;
  const timer = every > 0 ? setInterval(() => void run(), every * 1000) : null;
  timer?.unref();
  return async () => {
    if (timer) clearInterval(timer);
    await running;
  };
}
