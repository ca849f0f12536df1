import type { ImageData } from '@loupe/contracts';

/** One gallery image as the list API answers it; tests override what they look at. */
export const imageData = (modelId: string | number, id: number, patch: Partial<ImageData> = {}): ImageData => ({
  id,
  name: `img${id}.png`,
  kind: 'png',
  width: 64,
  height: 64,
  bytes: 100,
  split: 'none',
  starred: false,
  labeled: false,
  annotationCount: 0,
  classLabelId: null,
  testState: 'untested',
  testResultCount: null,
  uploadedAt: '2026-01-01T00:00:00.000Z',
  originalUrl: `/api/models/${modelId}/images/${id}/original`,
  thumbnailUrl: `/api/models/${modelId}/images/${id}/thumbnail`,
  ...patch,
});
