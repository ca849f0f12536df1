import { Limits, type Geometry, type ImageAnnotationsData, type ImageData, type ImageListData, type ImageListQuery } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { ListedImage } from '../../db/images.js';
import { classSets } from '../../db/image-classes.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { removeBlobsIfUnused } from './blob-cleanup.js';

const MIME = { jpeg: 'image/jpeg', mpo: 'image/jpeg', png: 'image/png', bmp: 'image/bmp', tiff: 'image/tiff', webp: 'image/webp' } as const;

export function imageView(img: Omit<ListedImage, 'no_class'>): ImageData {
  const base = `/api/models/${img.model_id}/images/${img.id}`;
  return {
    id: img.id,
    name: img.name,
    kind: img.kind,
    width: img.width,
    height: img.height,
    bytes: Number(img.bytes),
    split: img.split,
    starred: img.starred === 1,
    labeled: img.labeled === 1,
    annotationCount: img.annotation_count,
    classLabelId: img.class_label_id,
    testState: img.test_state,
    testResultCount: img.test_result_count,
    uploadedAt: new Date(Number(img.created_at)).toISOString(),
    originalUrl: `${base}/original`,
    thumbnailUrl: `${base}/thumbnail`,
  };
}

export async function listImages(deps: Deps, model: Model, q: ImageListQuery): Promise<ImageListData> {
  const pageSize = Math.min(q.pageSize ?? Limits.imageListPageSize, Limits.imageListPageMax);
  const { items, total } = await deps.images.list(model.id, q, pageSize, model.type === 'classification');
  const views = items.map(imageView);
  if (model.type !== 'classification') await attachShapes(deps, items, views);
  if (model.type === 'classification' && model.multi_label === 1) {
    const sets = await classSets(deps.db, items.map((i) => i.id));
    items.forEach((img, k) => Object.assign(views[k]!, { classLabelIds: sets.get(img.id) ?? [], noClass: img.no_class === 1 }));
  }
  return { items: views, total, nextAfter: items.length === pageSize ? items[items.length - 1]!.id : null };
}

/**
 * A page's thumbnails draw their labels: one query for the current annotations of the page's annotated images
 * (annotations_image_idx), at most Limits.galleryShapesMax per image.
 */
async function attachShapes(deps: Deps, items: readonly Omit<ListedImage, 'no_class'>[], views: ImageData[]) {
  const annotated = items.filter((i) => i.annotation_count > 0).map((i) => i.id);
  if (annotated.length === 0) return;
  const byImage = new Map<number, NonNullable<ImageData['shapes']>>();
  const truncated = new Set<number>();
  for (const r of await deps.annotations.current(annotated)) {
    let list = byImage.get(r.image_id);
    if (!list) byImage.set(r.image_id, (list = []));
    if (list.length >= Limits.galleryShapesMax) truncated.add(r.image_id);
    else list.push({ labelId: r.label_id, geometry: JSON.parse(r.geometry) as Geometry });
  }
  items.forEach((img, k) => {
    const shapes = byImage.get(img.id);
    if (!shapes) return;
    views[k]!.shapes = shapes;
    if (truncated.has(img.id)) views[k]!.shapesTruncated = true;
  });
}

export async function deleteImages(deps: Deps, model: Model, ids: number[]): Promise<number> {
  const { deleted, shas } = await deps.db.transaction().execute(async (trx) => {
    const removed = await deps.images.remove(trx, model.id, ids);
    // Unlabeled images were never training data: deleting them leaves trainings current.
    if (removed.labeled > 0) await deps.models.bumpDataVersion(trx, model.id);
    return removed;
  });
  await removeBlobsIfUnused(deps, shas);
  return deleted;
}

/**
 * The blob of an image or its thumbnail, with the content type to send. Not checked for existence here: a
 * redirect to a signed URL needs no round trip to the store, and the stream answers notFound (http/blob-reply.ts).
 */
export async function imageBlob(deps: Deps, model: Model, imageId: number, which: 'original' | 'thumbnail') {
  const img = await deps.images.find(model.id, imageId);
  if (!img) fail('notFound');
  const sha = which === 'original' ? img.sha256 : img.thumb_sha;
  return { sha, type: which === 'original' ? MIME[img.kind] : 'image/jpeg', name: img.name, bytes: which === 'original' ? Number(img.bytes) : undefined };
}

export async function imageAnnotations(deps: Deps, model: Model, imageId: number): Promise<ImageAnnotationsData> {
  const img = await deps.images.find(model.id, imageId);
  if (!img) fail('notFound');
  const rows = await deps.annotations.current([img.id]);
  return {
    imageId: img.id,
    version: img.annotation_version,
    annotations: rows.map((r) => ({ id: r.id, labelId: r.label_id, geometry: JSON.parse(r.geometry) as Geometry })),
  };
}
