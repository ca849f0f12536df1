import { createHash } from 'node:crypto';
import type { Geometry, Split } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Image } from '../../db/images.js';
import type { Model } from '../../db/models.js';
import { modelClassSets } from '../../db/image-classes.js';
import type { Deps } from '../deps.js';
import { boundsOf, round, toExportable } from '../formats/types.js';

/** The engine's split names (its COCO extension) for the gallery's. */
const ENGINE_SPLIT: Record<Exclude<Split, 'none'>, string> = { train: 'train', valid: 'val', test: 'test' };

export interface CocoManifest {
  /**
   * `split` is absent for an image in no split (one chosen for a test); `category_id` is a classification image's
   * class, `category_ids` a multi-label one's classes (possibly none).
   */
  images: { id: number; file_name: string; width: number; height: number; split?: string; category_id?: number; category_ids?: number[] }[];
  categories: { id: number; name: string }[];
  annotations: { id: number; image_id: number; category_id: number; bbox: number[]; area: number; iscrowd: 0; segmentation: number[][]; rbox?: number[]; text?: string }[];
}

export interface FrozenDataset {
  manifest: CocoManifest;
  json: Buffer;
  contentHash: string;
  /** Blob hash of each image file_name: what the runner links into the work folder. */
  blobs: Record<string, string>;
  hasRotated: boolean;
  counts: { images: number; total: number; labels: number; annotations: number; splits: Record<string, number> };
}

/**
 * Freezes the model's training data (SPEC §5 training rules): labeled images in the train/valid/test splits
 * with their current annotations, as the engine's COCO manifest. A classification image is labeled by its
 * class (images.class_label_id, the manifest image's `category_id`); the other types by their shapes
 * (polygons travel as COCO `segmentation`). Images are named by blob hash, so the manifest (and its hash)
 * say exactly which bytes train. Refuses with 8001 when nothing is labeled, names the first label without a
 * training or a validation image, and refuses a classification with fewer than two classes.
 */
export async function freezeDataset(deps: Deps, model: Model): Promise<FrozenDataset> {
  const all = await deps.images.all(model.id);
  const classify = model.type === 'classification';
  // Multi-label: an image is labeled by its set of classes, or as a confirmed negative (an empty set).
  const sets = classify && model.multi_label === 1 ? await labeledClassSets(deps, model.id, all) : null;
  const labeled = all.filter((i) => (sets ? sets.has(i.id) : classify ? i.class_label_id !== null : i.labeled === 1));
  if (labeled.length === 0) fail('noLabeledImages');
  const images = labeled.filter((i) => i.split !== 'none');
  const annotations = classify ? [] : await deps.annotations.current(images.map((i) => i.id));
  const labels = await deps.labels.list(model.id);
  // What makes an image count for a label: its class, or a shape of that label.
  const uses = sets
    ? images.flatMap((i) => sets.get(i.id)!.map((label_id) => ({ image_id: i.id, label_id })))
    : classify
      ? images.map((i) => ({ image_id: i.id, label_id: i.class_label_id! }))
      : annotations;

  const splitOf = new Map(images.map((i) => [i.id, i.split as Exclude<Split, 'none'>]));
  const perLabel = new Map<number, { train: Set<number>; valid: Set<number> }>();
  for (const a of uses) {
    if (!perLabel.has(a.label_id)) perLabel.set(a.label_id, { train: new Set(), valid: new Set() });
    const split = splitOf.get(a.image_id);
    if (split === 'train' || split === 'valid') perLabel.get(a.label_id)![split].add(a.image_id);
  }
  // Labels nobody used are not trained (the engine refuses a category without boxes); a label that is used
  // needs both a training and a validation image, the same rule auto split keeps.
  const used = labels.filter((l) => perLabel.has(l.id));
  if (used.length === 0) fail('noLabeledImages');
  for (const l of used) {
    const s = perLabel.get(l.id)!;
    if (s.train.size === 0 || s.valid.size === 0) fail('labelNeedsTrainValid', { label: l.name, train: s.train.size, valid: s.valid.size });
  }
  // A single-label classifier with one class has nothing to tell apart (the engine refuses it too, later); a
  // multi-label one may learn a single class against the images without it.
  if (classify && !sets && used.length < 2) fail('classesTooFew', { count: used.length });

  const { manifest, blobs, hasRotated } = cocoManifest(images, annotations, used.map((l, i) => ({ id: i + 1, name: l.name, labelId: l.id })), { classes: classify, classSets: sets ?? undefined });
  const json = Buffer.from(JSON.stringify(manifest));
  const splits: Record<string, number> = { train: 0, valid: 0, test: 0 };
  for (const img of images) splits[img.split] = (splits[img.split] ?? 0) + 1;
  return {
    manifest,
    json,
    contentHash: createHash('sha256').update(json).digest('hex'),
    blobs,
    hasRotated,
    counts: { images: images.length, total: all.length, labels: used.length, annotations: annotations.length, splits },
  };
}

/**
 * A multi-label model's labeled images and their classes (ascending label ids): those with at least one class,
 * and confirmed negatives with none. Unlabeled images are absent.
 */
export async function labeledClassSets(deps: Deps, modelId: number, images: readonly Image[]): Promise<Map<number, number[]>> {
  const sets = await modelClassSets(deps.db, modelId);
  for (const i of images) if (i.no_class === 1 && !sets.has(i.id)) sets.set(i.id, []);
  return sets;
}

/** Shoelace area of a simple polygon. */
function polygonArea(points: readonly (readonly [number, number])[]): number {
  let twice = 0;
  points.forEach(([x, y], i) => {
    const [nx, ny] = points[(i + 1) % points.length]!;
    twice += x * ny - nx * y;
  });
  return Math.abs(twice) / 2;
}

/** A category of the manifest and the label it stands for. */
export interface CocoCategory {
  id: number;
  name: string;
  labelId: number;
}

/**
 * The engine's COCO manifest of `images` with their `annotations` (current rows): images named by blob hash,
 * each shape as its bbox, polygon and rotated box; annotations of labels outside `categories` are left out.
 * With `classes`, each image whose class is a category carries it as `category_id` (classification); with
 * `classSets` (multi-label), each image in it carries its classes that are categories as `category_ids`.
 * Trainings freeze it; tests write one with the training's categories as ground truth.
 */
export function cocoManifest(
  images: readonly Image[],
  annotations: readonly { id: number; image_id: number; label_id: number; geometry: string }[],
  categories: readonly CocoCategory[],
  opts: { classes?: boolean; classSets?: ReadonlyMap<number, readonly number[]> } = {},
): { manifest: CocoManifest; blobs: Record<string, string>; hasRotated: boolean } {
  const category = new Map(categories.map((c) => [c.labelId, c.id]));
  const blobs: Record<string, string> = {};
  const manifest: CocoManifest = {
    images: images.map((img) => {
      const file = `${img.sha256}.${img.kind}`;
      blobs[file] = img.sha256;
      const cls = opts.classes && !opts.classSets && img.class_label_id !== null ? category.get(img.class_label_id) : undefined;
      const set = opts.classSets?.get(img.id);
      return {
        id: img.id,
        file_name: file,
        width: img.width,
        height: img.height,
        ...(img.split !== 'none' ? { split: ENGINE_SPLIT[img.split] } : {}),
        ...(cls !== undefined ? { category_id: cls } : {}),
        ...(set ? { category_ids: set.flatMap((l) => category.get(l) ?? []) } : {}),
      };
    }),
    categories: categories.map((c) => ({ id: c.id, name: c.name })),
    annotations: [],
  };
  let hasRotated = false;
  for (const a of annotations) {
    const categoryId = category.get(a.label_id);
    if (categoryId === undefined) continue;
    const g = JSON.parse(a.geometry) as Geometry;
    const flat = toExportable(g);
    const b = boundsOf(flat);
    manifest.annotations.push({
      id: a.id,
      image_id: a.image_id,
      category_id: categoryId,
      bbox: [round(b.x1), round(b.y1), round(b.x2 - b.x1), round(b.y2 - b.y1)],
      // COCO's area is the shape's own: a polygon's enclosed area, a box's width × height.
      area: round(flat.kind === 'polygon' ? polygonArea(flat.points) : (b.x2 - b.x1) * (b.y2 - b.y1)),
      iscrowd: 0,
      segmentation: flat.kind === 'polygon' ? [flat.points.flatMap(([x, y]) => [round(x), round(y)])] : [],
      ...(g.kind === 'rbox' ? { rbox: [g.cx, g.cy, g.w, g.h, g.angle].map((v) => round(v)) } : {}),
      // A box left without text (OCR) teaches the text detector only: the engine reads an empty `text` as a
      // labeling mistake, a missing one as "detection only" (engine/README.md, OCR).
      ...(g.text !== undefined && g.text.trim() !== '' ? { text: g.text } : {}),
    });
    if (g.kind === 'rbox') hasRotated = true;
  }
  return { manifest, blobs, hasRotated };
}
