import type { ModelType } from '@loupe/contracts';
import { stepPath } from '@/routes/steps';

/** The model's labeling page opened on one image. */
export const labelerPath = (type: ModelType | undefined, imageId: number) => `${stepPath('mark', type)}?imageId=${imageId}`;
