import { createHash } from 'node:crypto';
import type { Image } from '../../db/images.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { cocoManifest, labeledClassSets, type CocoManifest } from '../training/snapshot.js';

/** The analysis manifest: the engine's COCO of every image, each marked labeled or not (engine/AGENT.md, Analysis). */
export type AnalysisManifest = Omit<CocoManifest, 'images'> & { images: (CocoManifest['images'][number] & { labeled: boolean })[] };

export interface DatasetVersion {
  manifest: AnalysisManifest;
  json: Buffer;
  /** sha256 of `json`: the dataset version an analysis belongs to. */
  sha: string;
  /** Blob hash of each image file_name (what the job links into its work folder). */
  blobs: Record<string, string>;
  images: Image[];
}

/**
 * The model's whole dataset as the analysis reads it: every image (labeled or not, in a split or none) with its
 * current annotations, categories = the model's labels by their database ids, file names = blob hash + extension.
 * Built in memory only, so GET can compare its hash with the analysed one; the same data always hashes the same
 * (images and annotations in id order).
 */
export async function datasetVersion(deps: Deps, model: Model): Promise<DatasetVersion> {
  const images = await deps.images.all(model.id);
  const classify = model.type === 'classification';
  const sets = classify && model.multi_label === 1 ? await labeledClassSets(deps, model.id, images) : undefined;
  const annotations = classify ? [] : await deps.annotations.current(images.map((i) => i.id));
  const labels = await deps.labels.list(model.id);
  const categories = [...labels].sort((a, b) => a.id - b.id).map((l) => ({ id: l.id, name: l.name, labelId: l.id }));
  const { manifest, blobs } = cocoManifest(images, annotations, categories, { classes: classify, classSets: sets });
  const labeledOf = (i: Image) => (sets ? sets.has(i.id) : classify ? i.class_label_id !== null : i.labeled === 1);
  const full: AnalysisManifest = { ...manifest, images: manifest.images.map((m, k) => ({ ...m, labeled: labeledOf(images[k]!) })) };
  const json = Buffer.from(JSON.stringify(full));
  return { manifest: full, json, sha: createHash('sha256').update(json).digest('hex'), blobs, images };
}
