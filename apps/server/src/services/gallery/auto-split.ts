import { randomInt } from 'node:crypto';
import type { AutoSplitBody, AutoSplitData, Split } from '@loupe/contracts';
import { fail } from '../../errors.js';
import { classSets } from '../../db/image-classes.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';

type Part = Exclude<Split, 'none'>;
const EPS = 1e-6;

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * Auto split (SPEC §5): needs the confirmation tick and ratios in 0–1 summing to 1. First every label gets
 * one training and one validation image (rarest labels first, so a shared image is not spent twice), then
 * the rest fills each split up to its share. Fails, saying why, when a label cannot get both.
 */
export async function autoSplit(deps: Deps, model: Model, body: AutoSplitBody): Promise<AutoSplitData> {
  if (!body.confirm) fail('confirmationRequired');
  const r = body.ratios;
  const ratios = [r.train, r.valid, r.test];
  if (ratios.some((x) => !Number.isFinite(x) || x < 0 || x > 1) || Math.abs(r.train + r.valid + r.test - 1) > EPS || r.train <= 0 || r.valid <= 0) {
    fail('autoSplitRatios');
  }
  const images = (await deps.images.all(model.id)).filter((i) => body.includeUnlabeled || i.labeled === 1);
  if (images.length === 0) fail('autoSplitNoImages');

  const labelsOf = new Map<number, Set<number>>();
  const add = (imageId: number, labelId: number) => {
    if (!labelsOf.has(labelId)) labelsOf.set(labelId, new Set());
    labelsOf.get(labelId)!.add(imageId);
  };
  const ids = new Set(images.map((i) => i.id));
  for (const img of images) if (img.class_label_id !== null) add(img.id, img.class_label_id);
  // A multi-label image counts for each of its classes.
  if (model.multi_label === 1) for (const [id, set] of await classSets(deps.db, [...ids])) for (const l of set) add(id, l);
  for (const a of await deps.annotations.current([...ids])) add(a.image_id, a.label_id);
  const labels = await deps.labels.list(model.id);
  const byCount = labels.map((l) => ({ label: l, images: [...(labelsOf.get(l.id) ?? [])] })).sort((a, b) => a.images.length - b.images.length);
  for (const { label, images: imgs } of byCount) {
    if (imgs.length < 2) fail('autoSplitLabelTooFew', { label: label.name, count: imgs.length });
  }

  const assigned = new Map<number, Part>();
  for (const { label, images: imgs } of byCount) {
    const has = (p: Part) => imgs.some((id) => assigned.get(id) === p);
    const free = shuffle(imgs.filter((id) => !assigned.has(id)));
    for (const need of ['train', 'valid'] as const) {
      if (has(need)) continue;
      const pick = free.shift();
      if (pick === undefined) fail('autoSplitLabelTooFew', { label: label.name, count: imgs.length });
      assigned.set(pick, need);
    }
  }

  const n = images.length;
  const want: Record<Part, number> = { train: 0, valid: 0, test: Math.round(n * r.test) };
  want.valid = Math.max(1, Math.round(n * r.valid));
  want.train = n - want.valid - want.test;
  const have: Record<Part, number> = { train: 0, valid: 0, test: 0 };
  for (const p of assigned.values()) have[p] += 1;
  for (const id of shuffle(images.map((i) => i.id).filter((id) => !assigned.has(id)))) {
    // The split furthest below its share takes the next image.
    const part = (['test', 'valid', 'train'] as const).reduce((best, p) => (want[p] - have[p] > want[best] - have[best] ? p : best), 'train' as Part);
    assigned.set(id, part);
    have[part] += 1;
  }
  if (r.test > 0 && want.test > 0 && have.test === 0) fail('autoSplitTestTooFew');

  await deps.db.transaction().execute(async (trx) => {
    for (const part of ['train', 'valid', 'test'] as const) {
      const list = [...assigned].filter(([, p]) => p === part).map(([id]) => id);
      await deps.images.setSplit(model.id, list, part, trx);
    }
  });
  return have;
}
