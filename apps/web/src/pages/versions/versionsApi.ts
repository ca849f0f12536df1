import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { VersionPaths, type VersionCompareData, type VersionData, type VersionListData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { modelsKey } from '@/pages/models/modelsApi';

export const versionsKey = (modelId: string) => ['versions', modelId] as const;

/** The open model's versions (newest first), which one is the chosen default and which one is in use. */
export function useVersions(modelId: string) {
  return useQuery({
    queryKey: versionsKey(modelId),
    queryFn: () => api.get<VersionListData>(pathOf(VersionPaths.list, { modelId })),
  });
}

/** Two versions side by side: their curves, the parameters that differ, per-class metrics. */
export function useCompare(modelId: string, a: number | undefined, b: number | undefined) {
  return useQuery({
    queryKey: [...versionsKey(modelId), 'compare', a, b],
    queryFn: () => api.get<VersionCompareData>(pathOf(VersionPaths.compare, { modelId }), { params: { a, b } }),
    enabled: a !== undefined && b !== undefined && a !== b,
    staleTime: 30_000,
  });
}

/** After a change: this list, the trainings the other pages show (test, export, train) and the model are stale. */
function useChanged(modelId: string) {
  const client = useQueryClient();
  return (data?: VersionListData) => {
    if (data) client.setQueryData(versionsKey(modelId), data);
    void client.invalidateQueries({ queryKey: versionsKey(modelId) });
    void client.invalidateQueries({ queryKey: ['trainings', modelId] });
    void client.invalidateQueries({ queryKey: modelsKey });
  };
}

export function useSetDefault(modelId: string) {
  const changed = useChanged(modelId);
  return useMutation({
    mutationFn: (trainingId: number | null) => api.put<VersionListData>(pathOf(VersionPaths.default, { modelId }), { trainingId }),
    onSuccess: (data) => changed(data),
  });
}

export function useDeleteVersion(modelId: string) {
  const changed = useChanged(modelId);
  return useMutation({
    mutationFn: (trainingId: number) => api.delete<VersionListData>(pathOf(VersionPaths.one, { modelId, trainingId })),
    onSuccess: (data) => changed(data),
  });
}

export function useSetNote(modelId: string) {
  const changed = useChanged(modelId);
  return useMutation({
    mutationFn: ({ trainingId, note }: { trainingId: number; note: string }) => api.put<VersionData>(pathOf(VersionPaths.note, { modelId, trainingId }), { note }),
    onSuccess: () => changed(),
  });
}
