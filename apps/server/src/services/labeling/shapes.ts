import type { Geometry, NewAnnotation } from '@loupe/contracts';
import { fail, type ErrorVars } from '../../errors.js';
import type { Image } from '../../db/images.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { area, canonical, fitToImage } from './geometry.js';

/** How a refused shape is named to the client: the message's {{entry}} and the error's data. */
export type ShapeRef = (i: number) => { vars: ErrorVars; data: Record<string, number> };
export const byIndex: ShapeRef = (i) => ({ vars: { entry: `#${i + 1}` }, data: { index: i } });

export type ShapeCheck = { ok: NewAnnotation } | { refused: 'labelNotInModel' | 'shapeInvalid' | 'annotationTooSmall' };

/**
 * One shape against the SPEC §5 rules: its label is one of the model's, it is well formed, and once clamped
 * into the image it still has an area of at least the model's minimum (zero area means it lay outside).
 */
export function checkShape(model: Model, image: Image, labelIds: Set<number>, a: NewAnnotation): ShapeCheck {
  if (!labelIds.has(a.labelId)) return { refused: 'labelNotInModel' };
  const geometry = fitToImage(a.geometry, image);
  if (!geometry || !(area(geometry) > 0)) return { refused: 'shapeInvalid' };
  if (area(geometry) < model.min_annotation_area) return { refused: 'annotationTooSmall' };
  return { ok: { labelId: a.labelId, geometry } };
}

export async function modelLabelIds(deps: Deps, model: Model): Promise<Set<number>> {
  return new Set((await deps.labels.list(model.id)).map((l) => l.id));
}

/** Every shape checked and clamped, or the first refusal thrown (nothing is stored). */
export async function prepareShapes(deps: Deps, model: Model, image: Image, items: NewAnnotation[], ref: ShapeRef = byIndex): Promise<NewAnnotation[]> {
  const labelIds = await modelLabelIds(deps, model);
  return items.map((a, i) => {
    const r = checkShape(model, image, labelIds, a);
    if ('ok' in r) return r.ok;
    const { vars, data } = ref(i);
    if (r.refused === 'annotationTooSmall') fail('annotationTooSmall', { minArea: model.min_annotation_area }, data);
    fail(r.refused, r.refused === 'labelNotInModel' ? { entry: `#${a.labelId}` } : vars, data);
  });
}

/** The image's current set as NewAnnotations, in stored order. */
export async function currentSet(deps: Deps, imageId: number): Promise<NewAnnotation[]> {
  return (await deps.annotations.current([imageId])).map((r) => ({ labelId: r.label_id, geometry: JSON.parse(r.geometry) as Geometry }));
}

/** A shape and its label as one string: equal strings, equal annotations. */
export const shapeKey = (a: NewAnnotation) => canonical({ l: a.labelId, g: a.geometry });

/** Same shapes with the same labels, in any order. */
export function sameSet(a: NewAnnotation[], b: NewAnnotation[]): boolean {
  if (a.length !== b.length) return false;
  const key = (xs: NewAnnotation[]) => xs.map(shapeKey).sort().join('\n');
  return key(a) === key(b);
}

/**
 * Stores `items` as the image's next annotation version, provided it is still at `baseVersion`
 * (annotationConflict otherwise, and nothing changes), and raises the model's data version, all in one
 * transaction. Older versions stay as history rows.
 */
export async function commitSet(deps: Deps, model: Model, image: Image, baseVersion: number, items: NewAnnotation[]): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    if (!(await deps.annotations.claimVersion(trx, image.id, baseVersion))) fail('annotationConflict');
    await deps.annotations.replace(trx, { ...image, annotation_version: baseVersion }, items, deps.now());
    await deps.models.bumpDataVersion(trx, model.id);
  });
}
