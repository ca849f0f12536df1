import type { ImageData, ImageListData, LabelData, ModelType } from '@loupe/contracts';
import { imageData } from '@/pages/gallery/test/imageFixture';
import { useProject } from '@/stores/project';

export const MODEL_ID = '5';

export function openModel(type: ModelType) {
  useProject.getState().setProject({ id: MODEL_ID, name: 'Gears', code: 'M-5', type, sidebarType: 8, projectStatus: 'no' });
}

export const image = (id: number, patch: Partial<ImageData> = {}): ImageData => imageData(MODEL_ID, id, { height: 48, ...patch });

/** Newest first, as the list API answers; one page is enough for these tests. */
export const imageList = (images: ImageData[]): ImageListData => ({ items: images, total: images.length, nextAfter: null });

export const labels: LabelData[] = [
  { id: 3, name: 'dent', color: '#e6194b', imageCount: 0 },
  { id: 4, name: 'scratch', color: '#3cb44b', imageCount: 0 },
];
