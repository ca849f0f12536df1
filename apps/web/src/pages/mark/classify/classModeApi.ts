import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LabelingPaths, ModelPaths, type ClassificationModeData, type ModelData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';

/** The models page's key for one model (modelsApi useModel), so a switch refreshes what it shows too. */
const modelKey = (modelId: string) => ['models', 'one', modelId] as const;

/**
 * Whether the model takes several classes per image. Read silently: a page whose model failed to load says so
 * elsewhere. `settled`: the answer (or a failure, read as one class per image) is in.
 */
export function useMultiLabel(modelId: string): { multiLabel: boolean; loaded: boolean; settled: boolean } {
  const q = useQuery({
    queryKey: modelKey(modelId),
    queryFn: () => api.get<ModelData>(pathOf(ModelPaths.one, { modelId }), { silent: true }),
  });
  return { multiLabel: q.data?.multiLabel === true, loaded: q.isSuccess, settled: q.isSuccess || q.isError };
}

/**
 * Switches the mode (the server moves every image's classes). Every cached image page of /mark and the
 * gallery is then wrong: they are dropped, and the model's counts refetched. Errors (an image holding two
 * classes, named by the server) go to the caller.
 */
export function useSetMultiLabel(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (multiLabel: boolean) =>
      api.put<ClassificationModeData>(pathOf(LabelingPaths.classificationMode, { modelId }), { multiLabel }, { silent: true }),
    onSuccess: async (data) => {
      client.setQueryData<ModelData>(modelKey(modelId), (m) => (m ? { ...m, multiLabel: data.multiLabel, dataVersion: data.dataVersion } : m));
      client.removeQueries({ queryKey: ['mark', modelId, 'images'] });
      for (const queryKey of [['labels', modelId], ['images', modelId], ['models']]) await client.invalidateQueries({ queryKey, refetchType: 'none' });
    },
  });
}
