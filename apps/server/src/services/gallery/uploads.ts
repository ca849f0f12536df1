import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { Limits, type Language, type UploadData, type UploadResult } from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import type { Model } from '../../db/models.js';
import type { NewImage } from '../../db/images.js';
import type { Deps } from '../deps.js';
import { ensureLabels } from '../labels.js';
import { checkImage, isRefusal, type Checked, type Refusal } from './check.js';
import { receiveFiles, type ReceivedFile } from './receive.js';
import { blobClaims, removeBlobsIfUnused } from './blob-cleanup.js';
import { breathe } from './breathe.js';

export type UploadMode = 'images' | 'folders';

/** Files checked at once while more arrive: sharp decodes on libuv's pool, so a few in flight keep it busy. */
const IN_FLIGHT = 6;

/** A file name as the gallery stores it: control characters out, trimmed, at most Limits.imageNameMax. */
export const cleanName = (s: string) =>
  [...s].filter((c) => c.charCodeAt(0) >= 32 && c.charCodeAt(0) !== 127).join('').trim().slice(0, Limits.imageNameMax) || 'image';

/** For folder uploads: `<folder>/<file>`; anything else is refused with the reason. */
function folderOf(name: string): { folder: string } | Refusal {
  const parts = name.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length < 2) return { key: 'notInFolder', vars: { path: name } };
  if (parts.length > 2 || parts.includes('..')) return { key: 'nestedFolder', vars: { path: name } };
  return { folder: parts[0]! };
}

/**
 * Gallery upload (SPEC §5): images only / unclassified images (`images`), or classified folders whose
 * names become labels (`folders`). Each file is answered accepted or refused; the rows of the accepted ones
 * go in one transaction, and if anything fails the blobs this request created are deleted again.
 */
export async function uploadImages(deps: Deps, model: Model, req: FastifyRequest, mode: UploadMode, lang: Language): Promise<UploadData> {
  if (mode === 'folders' && model.type !== 'classification') fail('wrongModelType');
  const written: string[] = [];
  // Each image's key is claimed before its file is stored, so that a delete of the same bytes (any account)
  // cannot remove the file before this request's rows commit (blob-cleanup.ts).
  const claims = blobClaims(deps);
  const checks: Promise<Checked | Refusal>[] = [];
  const names: string[] = [];
  const inFlight = new Set<Promise<unknown>>();
  try {
    await receiveFiles(deps, req, 'files', async (file: ReceivedFile) => {
      names.push(file.name);
      if (!file.tooLarge && file.bytes > 0) await claims.add(file.sha);
      const check = checkImage(deps, model.id, file, written);
      checks.push(check);
      const settled = check.catch(() => undefined).finally(() => inFlight.delete(settled));
      inFlight.add(settled);
      if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    });
    const outcomes = await Promise.all(checks);
    if (outcomes.length === 0) fail('uploadFailed');
    return await store(deps, model, mode, names, outcomes, lang, claims);
  } catch (e) {
    const settled = await Promise.allSettled(checks);
    await claims.release();
    // Only what no row names: another upload of the same bytes may have committed meanwhile.
    const stored = settled.flatMap((r) => (r.status === 'fulfilled' && !isRefusal(r.value) ? [[r.value.file.sha, r.value.thumbSha]] : []));
    const grouped = new Set(stored.flat());
    await removeBlobsIfUnused(deps, [...stored, ...written.filter((sha) => !grouped.has(sha))]);
    if (e instanceof AppError) throw e;
    deps.log.error(e, 'upload failed');
    fail('uploadFailed');
  }
}

async function store(
  deps: Deps,
  model: Model,
  mode: UploadMode,
  names: string[],
  outcomes: (Checked | Refusal)[],
  lang: Language,
  claims: ReturnType<typeof blobClaims>,
): Promise<UploadData> {
  const refuse = (name: string, r: Refusal, folder = false): UploadResult => {
    const def = new AppError(r.key, r.vars);
    if (folder) {
      const reason = errorMessage(lang, def.def.key, r.vars);
      const wrapped = new AppError('folderUploadFailed', { reason });
      return { name, status: 'refused', code: wrapped.def.code, message: errorMessage(lang, 'folderUploadFailed', { reason }) };
    }
    return { name, status: 'refused', code: def.def.code, message: errorMessage(lang, def.def.key, r.vars) };
  };
  const results: UploadResult[] = names.map((name, i) => {
    const o = outcomes[i]!;
    return isRefusal(o) ? refuse(name, o) : { name, status: 'accepted' };
  });
  const folders = new Map<number, string>();
  if (mode === 'folders') {
    outcomes.forEach((o, i) => {
      if (isRefusal(o)) return;
      const f = folderOf(names[i]!);
      if ('key' in f) results[i] = refuse(names[i]!, f, true);
      else folders.set(i, f.folder);
    });
  }
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    const labels = mode === 'folders' ? await ensureLabels(deps, trx, model.id, new Set(folders.values())) : null;
    const seen = new Set<string>();
    let classified = 0;
    for (let i = 0; i < outcomes.length; i++) {
      // SQLite answers synchronously: let other requests run between rows of a big upload (up to
      // Limits.uploadMaxFiles); their queries wait for this transaction's connection, as before.
      await breathe();
      const o = outcomes[i]!;
      if (isRefusal(o) || results[i]!.status === 'refused') continue;
      let classLabel: number | null = null;
      if (labels) {
        const folder = folders.get(i)!;
        const problem = labels.problems.find((p) => p.name.trim().toLowerCase() === folder.trim().toLowerCase());
        if (problem) {
          const reason = errorMessage(lang, problem.key, { field: 'name', max: problem.key === 'labelCountExceeded' ? deps.config.gallery.labelMax : Limits.labelNameMax, ...problem.vars });
          results[i] = { name: names[i]!, status: 'refused', code: new AppError('labelCreateFailed').def.code, message: errorMessage(lang, 'labelCreateFailed', { label: folder, reason }) };
          continue;
        }
        classLabel = labels.ids.get(folder.trim().toLowerCase()) ?? null;
      }
      const name = cleanName(path.posix.basename(names[i]!.replace(/\\/g, '/')));
      const row: NewImage = {
        model_id: model.id,
        name,
        name_key: name.toLowerCase(),
        kind: o.kind,
        width: o.width,
        height: o.height,
        bytes: o.file.bytes,
        sha256: o.file.sha,
        thumb_sha: o.thumbSha,
        // A multi-label model keeps classes as sets (image_classes), never in class_label_id.
        class_label_id: model.multi_label === 1 ? null : classLabel,
        labeled: classLabel === null ? 0 : 1,
        created_at: now,
      };
      const id = seen.has(o.file.sha) ? null : await deps.images.insertUnlessDuplicate(trx, row);
      seen.add(o.file.sha);
      if (id === null) results[i] = refuse(names[i]!, { key: 'duplicateImage' });
      else results[i] = { name: names[i]!, status: 'accepted', imageId: id, ...(classLabel ? { labelId: classLabel } : {}) };
      if (id !== null && classLabel !== null) classified += 1;
      if (id !== null && classLabel !== null && model.multi_label === 1) await trx.insertInto('image_classes').values({ image_id: id, label_id: classLabel }).execute();
    }
    // Classified images are new training data; unlabeled ones are not until someone labels them.
    if (classified > 0) await deps.models.bumpDataVersion(trx, model.id);
  });
  await claims.release();
  // Files refused after their blobs were stored (duplicates, folder problems) must not leave files behind.
  const stored = outcomes.flatMap((o, i) => (!isRefusal(o) && results[i]!.status === 'refused' ? [[o.file.sha, o.thumbSha]] : []));
  if (stored.length > 0) await removeBlobsIfUnused(deps, stored);
  const accepted = results.filter((r) => r.status === 'accepted').length;
  return { accepted, refused: results.length - accepted, results };
}
