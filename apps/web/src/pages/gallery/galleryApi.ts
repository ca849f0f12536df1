import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  DatasetPaths,
  type AutoSplitBody,
  type AutoSplitData,
  type ImageChangeData,
  type ImageListData,
  type LabelCreateBody,
  type LabelData,
  type LabelUpdateBody,
  type Split,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { modelsKey } from '@/pages/models/modelsApi';
import { toImageQuery, type GalleryFilters } from './query';

/** Fill `:modelId`, `:imageId`, `:labelId` of a contract path. */
export function pathOf(path: string, ids: Record<string, string | number>): string {
  return path.replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(String(ids[key] ?? '')));
}

const imagesKey = (modelId: string) => ['images', modelId] as const;
const labelsKey = (modelId: string) => ['labels', modelId] as const;

function fetchPage(modelId: string, filters: GalleryFilters, page: number) {
  return api.get<ImageListData>(pathOf(DatasetPaths.images, { modelId }), { params: { ...toImageQuery(filters, page) } });
}

/** The first page: it carries the total that sizes the grid. */
export function useImageTotal(modelId: string, filters: GalleryFilters) {
  return useQuery({
    queryKey: [...imagesKey(modelId), filters, 1],
    queryFn: () => fetchPage(modelId, filters, 1),
    placeholderData: keepPreviousData,
  });
}

/** Only the pages the grid shows right now; every page stays cached while the user scrolls back. */
export function useImagePages(modelId: string, filters: GalleryFilters, pages: number[]) {
  return useQueries({
    queries: pages.map((page) => ({
      queryKey: [...imagesKey(modelId), filters, page],
      queryFn: () => fetchPage(modelId, filters, page),
      staleTime: 30_000,
    })),
  });
}

/** After any change to images the lists, the model's counts and the labels' counts are stale. */
function useInvalidate(modelId: string) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: imagesKey(modelId) }),
      client.invalidateQueries({ queryKey: labelsKey(modelId) }),
      client.invalidateQueries({ queryKey: modelsKey }),
    ]);
}

export function useGalleryInvalidate(modelId: string) {
  return useInvalidate(modelId);
}

export function useStar(modelId: string) {
  const invalidate = useInvalidate(modelId);
  return useMutation({
    mutationFn: (body: { ids: number[]; starred: boolean }) =>
      api.post<ImageChangeData>(pathOf(DatasetPaths.star, { modelId }), body),
    onSettled: invalidate,
  });
}

export function useDeleteImages(modelId: string) {
  const invalidate = useInvalidate(modelId);
  return useMutation({
    mutationFn: (ids: number[]) => api.post<ImageChangeData>(pathOf(DatasetPaths.remove, { modelId }), { ids }),
    onSettled: invalidate,
  });
}

export function useSetSplit(modelId: string) {
  const invalidate = useInvalidate(modelId);
  return useMutation({
    mutationFn: (body: { ids: number[]; split: Split }) =>
      api.post<ImageChangeData>(pathOf(DatasetPaths.split, { modelId }), body),
    onSettled: invalidate,
  });
}

/** Silent: the dialog shows the server's reason (too few images of a label…) inside itself. */
export function useAutoSplit(modelId: string) {
  const invalidate = useInvalidate(modelId);
  return useMutation({
    mutationFn: (body: AutoSplitBody) =>
      api.post<AutoSplitData>(pathOf(DatasetPaths.autoSplit, { modelId }), body, { silent: true }),
    onSuccess: invalidate,
  });
}

export function useLabels(modelId: string) {
  return useQuery({
    queryKey: labelsKey(modelId),
    queryFn: () => api.get<LabelData[]>(pathOf(DatasetPaths.labels, { modelId })),
  });
}

/** Label calls are silent: the panel puts "label name already exists" and "label count exceeded" on the field. */
export function useLabelMutations(modelId: string) {
  const invalidate = useInvalidate(modelId);
  const label = (labelId: number) => pathOf(DatasetPaths.label, { modelId, labelId });
  const create = useMutation({
    mutationFn: (body: LabelCreateBody) => api.post<LabelData>(pathOf(DatasetPaths.labels, { modelId }), body, { silent: true }),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, ...body }: LabelUpdateBody & { id: number }) => api.put<LabelData>(label(id), body, { silent: true }),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: number) => api.delete<unknown>(label(id)),
    onSettled: invalidate,
  });
  return { create, update, remove };
}
