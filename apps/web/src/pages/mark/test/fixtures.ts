import type { ImageData, ImageListData, LabelData, ModelType } from '@loupe/contracts';
import { useProject } from '@/stores/project';

export const MODEL_ID = '5';

export function openModel(type: ModelType) {
  useProject.getState().setProject({ id: MODEL_ID, name: 'Gears', code: 'M-5', type, sidebarType: 8, projectStatus: 'no' });
}

export const image = (id: number, patch: Partial<ImageData> = {}): ImageData => ({
  id,
  name: `img${id}.png`,
  kind: 'png',
  width: 64,
  height: 48,
  bytes: 100,
  split: 'none',
  starred: false,
  labeled: false,
  annotationCount: 0,
  classLabelId: null,
  testState: 'untested',
  testResultCount: null,
  uploadedAt: '2026-01-01T00:00:00.000Z',
  originalUrl: `/api/models/${MODEL_ID}/images/${id}/original`,
  thumbnailUrl: `/api/models/${MODEL_ID}/images/${id}/thumbnail`,
  ...patch,
});

/** Newest first, as the list API answers; one page is enough for these tests. */
export const imageList = (images: ImageData[]): ImageListData => ({ items: images, total: images.length, nextAfter: null });

export const labels: LabelData[] = [
  { id: 3, name: 'dent', color: '#e6194b', imageCount: 0 },
  { id: 4, name: 'scratch', color: '#3cb44b', imageCount: 0 },
];
