import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { DatasetPaths, type ImageData, type ImageListData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { toImageQuery } from '@/pages/gallery/query';

/** The gallery filters that speak about testing (SPEC §3 image status), on the test split. */
export const TEST_IMAGE_FILTERS = ['all', 'untested', 'tested', 'testedWithResults', 'testedNoResults'] as const;
export type TestImageFilter = (typeof TEST_IMAGE_FILTERS)[number];
export const TEST_IMAGES_PAGE_SIZE = 48;

/** Under the gallery's ['images', modelId] key: uploads, splits and finished runs refresh it with the gallery. */
export function useTestSplitImages(modelId: string, filter: TestImageFilter, page: number) {
  return useQuery({
    queryKey: ['images', modelId, 'testSplit', filter, page],
    queryFn: () =>
      api.get<ImageListData>(pathOf(DatasetPaths.images, { modelId }), {
        params: { ...toImageQuery({ filter, split: 'test', name: '' }, page, TEST_IMAGES_PAGE_SIZE) },
      }),
    placeholderData: keepPreviousData,
  });
}

/** What a card says about an image's testing: never tested, waiting in a run, or tested with n results. */
export function testStateOf(image: Pick<ImageData, 'testState' | 'testResultCount'>): 'untested' | 'unprocessed' | 'withResults' | 'noResults' {
  if (image.testState !== 'tested') return image.testState;
  return (image.testResultCount ?? 0) > 0 ? 'withResults' : 'noResults';
}
