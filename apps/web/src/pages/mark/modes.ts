import type { EditorMode } from '@loupe/annotator';
import type { GuideId, ModelType } from '@loupe/contracts';

/** What a labeling page does: draw shapes with one of the editor's modes, or give each image one class. */
export type MarkKind = EditorMode | 'classification';

const KIND_OF_TYPE: Partial<Record<ModelType, MarkKind>> = {
  DETECTION: 'detection',
  SEGMENTATION: 'segmentation',
  OCR: 'ocr',
  MEASURE: 'measure',
  classification: 'classification',
};

/** The labeling kind of a model type; synthetic-data models (FPG, RPG) have none. */
export const markKindOf = (type: ModelType): MarkKind | undefined => KIND_OF_TYPE[type];

/** First-use guide of each page kind (contracts GuideIds). */
export const guideOf = (kind: MarkKind): GuideId => `mark-${kind}`;
