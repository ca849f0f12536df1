import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ModelPaths,
  type DeletedData,
  type ModelCreateBody,
  type ModelData,
  type ModelListData,
  type ModelListQuery,
} from '@loupe/contracts';
import { api } from '@/api/client';

export const modelsKey = ['models'] as const;

export const modelPath = (id: number | string) => ModelPaths.one.replace(':modelId', String(id));

/** GET /api/models with the list's filters, sorting and page; the previous page stays while the next loads. */
export function useModels(query: ModelListQuery) {
  return useQuery({
    queryKey: [...modelsKey, 'list', query],
    queryFn: () => api.get<ModelListData>(ModelPaths.list, { params: query }),
    placeholderData: keepPreviousData,
  });
}

/** GET one model: the gallery and dashboard read its counts. */
export function useModel(id: number | string | undefined) {
  return useQuery({
    queryKey: [...modelsKey, 'one', String(id)],
    queryFn: () => api.get<ModelData>(modelPath(id!)),
    enabled: id !== undefined && id !== '',
  });
}

/** POST /api/models. Silent: the dialog puts "model name already exists" on the name field itself. */
export function useCreateModel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ModelCreateBody) => api.post<ModelData>(ModelPaths.list, body, { silent: true }),
    onSuccess: () => client.invalidateQueries({ queryKey: modelsKey }),
  });
}

export function useDeleteModel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.delete<DeletedData>(modelPath(id)),
    onSettled: () => client.invalidateQueries({ queryKey: modelsKey }),
  });
}
