import { DatasetPaths, ImageExtensions, ImageUploadField, Limits, type ModelType } from '@loupe/contracts';
import type { PrecheckRules } from './precheck';

/**
 * The wizards of SPEC §2 (gallery/dataset), plus `labelledZip` (issue 33): a ZIP that carries its images and
 * their labels (a Roboflow, CVAT or Ultralytics export, LabelMe JSON with imageData, class folders) goes
 * straight to the ZIP step, with no image upload before it.
 */
export type UploadMode = 'images' | 'imagesWithAnnotations' | 'unclassified' | 'folders' | 'labelledZip';

/** Classification models upload unclassified images or class folders; every other type images (and a ZIP). */
export function modesFor(type: ModelType | undefined): UploadMode[] {
  return type === 'classification' ? ['unclassified', 'folders', 'labelledZip'] : ['images', 'imagesWithAnnotations', 'labelledZip'];
}

/** What an annotation ZIP may hold, as the ZIP step names it (gallery `importFormats.*`). */
export type ImportFormatName = 'coco' | 'voc' | 'labelme' | 'yolo' | 'dota' | 'cvat' | 'labelstudio' | 'datumaro' | 'folders' | 'list' | 'cvatTags';

/**
 * The formats a model type's import reads, for the ZIP step's hint. DOTA holds only four-corner boxes, so it
 * serves detection alone; YOLO has no place for text but OCR still takes its boxes; classification reads
 * class folders, a CSV/JSON list of file → class, or CVAT tags.
 */
export function annotationFormatsFor(type: ModelType | undefined): ImportFormatName[] {
  if (type === 'classification') return ['folders', 'list', 'cvatTags'];
  if (type === 'DETECTION') return ['coco', 'voc', 'labelme', 'yolo', 'dota', 'cvat', 'labelstudio', 'datumaro'];
  return ['coco', 'voc', 'labelme', 'yolo', 'cvat', 'labelstudio', 'datumaro'];
}

export const IMAGE_RULES: PrecheckRules = {
  extensions: ImageExtensions.map((e) => e.slice(1)),
  maxFileBytes: Limits.imageMaxBytes,
};

/** `accept` of the file inputs: the gallery's extensions. */
export const IMAGE_ACCEPT = ImageExtensions.join(',');

export function uploadUrl(mode: UploadMode, modelId: string): string {
  const path = mode === 'folders' ? DatasetPaths.uploadFolders : DatasetPaths.upload;
  return path.replace(':modelId', encodeURIComponent(modelId));
}

export { ImageUploadField };
