import { DatasetPaths, ImageExtensions, ImageUploadField, Limits, type ModelType } from '@loupe/contracts';
import type { PrecheckRules } from './precheck';

/** The four wizards of SPEC §2 (gallery/dataset). */
export type UploadMode = 'images' | 'imagesWithAnnotations' | 'unclassified' | 'folders';

/** Classification models upload unclassified images or class folders; every other type images (and a ZIP). */
export function modesFor(type: ModelType | undefined): UploadMode[] {
  return type === 'classification' ? ['unclassified', 'folders'] : ['images', 'imagesWithAnnotations'];
}

/** The annotation formats a ZIP may hold; LabelMe polygons only make sense for segmentation (SPEC §5). */
export function annotationFormatsFor(type: ModelType | undefined): string[] {
  return type === 'SEGMENTATION' ? ['coco', 'voc', 'yolo', 'labelme'] : ['coco', 'voc', 'yolo'];
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
