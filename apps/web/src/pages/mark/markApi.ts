import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import {
  DatasetPaths,
  Errors,
  LabelingPaths,
  type AnnotationsSaveBody,
  type ConvertTestResultsBody,
  type GuideId,
  type GuidesData,
  type ImageAnnotationsData,
  type ImageClassData,
  type ImageData,
  type ImageListData,
  type LabelingSettingsData,
  type TestResultsData,
} from '@loupe/contracts';
import { api, isApiError } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { NAV_PAGE_SIZE, type ListPage } from './navigation/position';

const markKey = (modelId: string) => ['mark', modelId] as const;
const pageKey = (modelId: string, page: number) => [...markKey(modelId), 'images', page] as const;
const annotationsKey = (modelId: string, imageId: number) => [...markKey(modelId), 'annotations', imageId] as const;
const testResultsKey = (modelId: string, imageId: number) => [...markKey(modelId), 'testResults', imageId] as const;
const settingsKey = (modelId: string) => [...markKey(modelId), 'settings'] as const;
const guidesKey = ['user', 'guides'] as const;

const imagePath = (path: string, modelId: string, imageId: number) => pathOf(path, { modelId, imageId });

/** A page of the gallery's list (no filters, newest first): the order previous/next walks. */
export function fetchImagePage(client: QueryClient, modelId: string, page: number): Promise<ListPage<ImageData>> {
  return client.fetchQuery({
    queryKey: pageKey(modelId, page),
    queryFn: () =>
      api.get<ImageListData>(pathOf(DatasetPaths.images, { modelId }), { params: { page, pageSize: NAV_PAGE_SIZE } }),
    staleTime: 30_000,
  });
}

/**
 * Drops the cached pages of the list: the labeler opens on the list as it is now, since the gallery (uploads,
 * deletions) changes it without knowing these pages (issue 31: after an upload it said "no images yet").
 */
export function forgetImagePages(client: QueryClient, modelId: string): void {
  client.removeQueries({ queryKey: [...markKey(modelId), 'images'] });
}

/** Put a changed image (its class) into the cached page so stepping back shows it without a refetch. */
export function patchCachedImage(client: QueryClient, modelId: string, page: number, image: ImageData): void {
  client.setQueryData<ImageListData>(pageKey(modelId, page), (data) =>
    data ? { ...data, items: data.items.map((i) => (i.id === image.id ? image : i)) } : data,
  );
}

/** Always from the server: the editor's starting point must be the version the next save builds on. */
export function fetchAnnotations(client: QueryClient, modelId: string, imageId: number): Promise<ImageAnnotationsData> {
  return client.fetchQuery({
    queryKey: annotationsKey(modelId, imageId),
    queryFn: () => api.get<ImageAnnotationsData>(imagePath(LabelingPaths.annotations, modelId, imageId)),
    staleTime: 0,
  });
}

/** Outside the query cache: a prefetched set lives only until its image opens (annotationPrefetch.ts). */
export function getAnnotations(modelId: string, imageId: number, options: { silent?: boolean } = {}): Promise<ImageAnnotationsData> {
  return api.get<ImageAnnotationsData>(imagePath(LabelingPaths.annotations, modelId, imageId), options);
}

export function saveAnnotations(modelId: string, imageId: number, body: AnnotationsSaveBody): Promise<ImageAnnotationsData> {
  return api.put<ImageAnnotationsData>(imagePath(LabelingPaths.annotations, modelId, imageId), body);
}

export const isConflict = (error: unknown) => isApiError(error) && error.code === Errors.annotationConflict.code;

/**
 * Label counts and the model's labelled count changed: mark the gallery's queries stale without refetching,
 * since this page does not show them and a refetch per autosave would double the traffic.
 */
export function useDatasetStale(modelId: string) {
  const client = useQueryClient();
  return () => {
    for (const queryKey of [['labels', modelId], ['images', modelId], ['models']]) {
      void client.invalidateQueries({ queryKey, refetchType: 'none' });
    }
  };
}

export function useSetImageClass(modelId: string) {
  const stale = useDatasetStale(modelId);
  return useMutation({
    mutationFn: ({ imageId, labelId }: { imageId: number; labelId: number | null }) =>
      api.put<ImageClassData>(imagePath(LabelingPaths.imageClass, modelId, imageId), { labelId }),
    onSuccess: stale,
  });
}

export function useTestResults(modelId: string, imageId: number | undefined) {
  return useQuery({
    queryKey: testResultsKey(modelId, imageId ?? 0),
    queryFn: () => api.get<TestResultsData>(imagePath(LabelingPaths.testResults, modelId, imageId!)),
    enabled: imageId !== undefined,
    staleTime: 60_000,
  });
}

/** Errors go to the caller: "not test data, cannot convert" and "convert failed" are shown by the page. */
export function useConvertTestResults(modelId: string) {
  const stale = useDatasetStale(modelId);
  return useMutation({
    mutationFn: ({ imageId, ...body }: ConvertTestResultsBody & { imageId: number }) =>
      api.post<ImageAnnotationsData>(imagePath(LabelingPaths.convertTestResults, modelId, imageId), body),
    onSuccess: stale,
  });
}

export function useLabelingSettings(modelId: string) {
  return useQuery({
    queryKey: settingsKey(modelId),
    queryFn: () => api.get<LabelingSettingsData>(pathOf(LabelingPaths.settings, { modelId })),
  });
}

export function useSaveLabelingSettings(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (minArea: number) => api.put<LabelingSettingsData>(pathOf(LabelingPaths.settings, { modelId }), { minArea }),
    onSuccess: (data) => client.setQueryData(settingsKey(modelId), data),
  });
}

/** The guides this user has seen. Silent: a failure only means the guide may show once more. */
export function useGuides() {
  return useQuery({
    queryKey: guidesKey,
    queryFn: () => api.get<GuidesData>(LabelingPaths.guides, { silent: true }),
    staleTime: Infinity,
  });
}

export function useGuideSeen() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (guide: GuideId) => api.post<GuidesData>(LabelingPaths.guides, { guide }, { silent: true }),
    onSuccess: (data) => client.setQueryData(guidesKey, data),
  });
}
