import type { Kysely } from 'kysely';
import { Limits, forbiddenNameChar, type LabelCreateBody, type LabelData, type LabelUpdateBody } from '@loupe/contracts';
import { fail } from '../errors.js';
import type { DB } from '../db/schema.js';
import type { Model } from '../db/models.js';
import type { Deps } from './deps.js';
import { checkText } from './models.js';
import { checkName } from './rules.js';

/** Distinct colours handed out in turn to labels created without one. */
const PALETTE = ['#e6194b', '#3cb44b', '#ffe119', '#4363d8', '#f58231', '#911eb4', '#46f0f0', '#f032e6', '#bcf60c', '#fabebe', '#008080', '#9a6324'];
const colorFor = (n: number) => PALETTE[n % PALETTE.length]!;

export async function listLabels(deps: Deps, model: Model): Promise<LabelData[]> {
  const [labels, counts] = await Promise.all([deps.labels.list(model.id), deps.labels.imageCounts(model.id)]);
  return labels.map((l) => ({ id: l.id, name: l.name, color: l.color, imageCount: counts.get(l.id) ?? 0 }));
}

export async function createLabel(deps: Deps, model: Model, body: LabelCreateBody): Promise<LabelData> {
  const name = checkName('name', checkText('name', body.name, Limits.labelNameMax, true));
  const color = body.color?.toLowerCase();
  const id = await deps.db.transaction().execute(async (trx) => {
    const count = await deps.labels.count(model.id, trx);
    if (count >= deps.config.gallery.labelMax) fail('labelCountExceeded', { max: deps.config.gallery.labelMax });
    if (await deps.labels.findByKey(model.id, name.toLowerCase(), trx)) fail('labelNameExists');
    return deps.labels.insert(trx, { model_id: model.id, name, name_key: name.toLowerCase(), color: color ?? colorFor(count), created_at: deps.now() });
  });
  return { id, name, color: (await deps.labels.find(model.id, id))!.color, imageCount: 0 };
}

export async function updateLabel(deps: Deps, model: Model, labelId: number, body: LabelUpdateBody): Promise<LabelData> {
  const label = await deps.labels.find(model.id, labelId);
  if (!label) fail('notFound');
  const patch: { name?: string; name_key?: string; color?: string } = {};
  if (body.name !== undefined) {
    patch.name = checkName('name', checkText('name', body.name, Limits.labelNameMax, true));
    patch.name_key = patch.name.toLowerCase();
    const other = await deps.labels.findByKey(model.id, patch.name_key);
    if (other && other.id !== labelId) fail('labelNameExists');
  }
  if (body.color !== undefined) patch.color = body.color.toLowerCase();
  // A new name changes what the training data says; a new colour does not.
  const renamed = patch.name !== undefined && patch.name !== label.name;
  if (Object.keys(patch).length > 0) {
    await deps.db.transaction().execute(async (trx) => {
      await deps.labels.update(model.id, labelId, patch, trx);
      if (renamed) await deps.models.bumpDataVersion(trx, model.id);
    });
  }
  const counts = await deps.labels.imageCounts(model.id);
  const now = (await deps.labels.find(model.id, labelId))!;
  return { id: now.id, name: now.name, color: now.color, imageCount: counts.get(now.id) ?? 0 };
}

export async function deleteLabel(deps: Deps, model: Model, labelId: number): Promise<void> {
  if (!(await deps.labels.find(model.id, labelId))) fail('notFound');
  await deps.db.transaction().execute(async (trx) => {
    await deps.labels.remove(trx, model.id, labelId);
    await deps.models.bumpDataVersion(trx, model.id);
  });
}

export type LabelProblem = { name: string; key: 'labelCountExceeded' | 'fieldRequired' | 'fieldTooLong' | 'nameCharacters'; vars?: { char: string } };

/**
 * Label ids for names an import or folder upload uses, creating the missing ones inside the caller's
 * transaction. Names that cannot become labels (empty, too long, over the count) come back as problems.
 */
export async function ensureLabels(
  deps: Deps,
  trx: Kysely<DB>,
  modelId: number,
  names: Iterable<string>,
): Promise<{ ids: Map<string, number>; created: string[]; problems: LabelProblem[] }> {
  const ids = new Map<string, number>();
  const created: string[] = [];
  const problems: LabelProblem[] = [];
  const existing = await deps.labels.list(modelId, trx);
  for (const l of existing) ids.set(l.name_key, l.id);
  let count = existing.length;
  for (const raw of names) {
    const name = raw.trim();
    const key = name.toLowerCase();
    if (ids.has(key)) continue;
    if (!name) {
      problems.push({ name: raw, key: 'fieldRequired' });
      continue;
    }
    if (name.length > Limits.labelNameMax) {
      problems.push({ name, key: 'fieldTooLong' });
      continue;
    }
    const char = forbiddenNameChar(name);
    if (char) {
      problems.push({ name, key: 'nameCharacters', vars: { char } });
      continue;
    }
    if (count >= deps.config.gallery.labelMax) {
      problems.push({ name, key: 'labelCountExceeded' });
      continue;
    }
    const id = await deps.labels.insert(trx, { model_id: modelId, name, name_key: key, color: colorFor(count), created_at: deps.now() });
    ids.set(key, id);
    created.push(name);
    count += 1;
  }
  return { ids, created, problems };
}
