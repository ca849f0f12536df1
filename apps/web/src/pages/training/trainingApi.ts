import { useCallback } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActiveTrainingStatuses,
  ParameterPaths,
  type PretrainedListData,
  ResumePaths,
  TrainingPaths,
  type SavedParamsData,
  type TrainingData,
  type TrainingDetailData,
  type TrainingEstimateData,
  type TrainingListData,
  type TrainingParamValues,
  type TrainingStartBody,
  type TrainingStatus,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';
import { modelsKey } from '@/pages/models/modelsApi';

export const trainingsKey = (modelId: string) => ['trainings', modelId] as const;
const detailKey = (modelId: string, trainingId: number) => [...trainingsKey(modelId), 'one', trainingId] as const;
const paramsKey = (modelId: string) => ['parameters', modelId] as const;

export const trainingPath = (path: string, modelId: string, trainingId?: number) =>
  pathOf(path, trainingId === undefined ? { modelId } : { modelId, trainingId });

export const isActive = (status: TrainingStatus) => (ActiveTrainingStatuses as readonly string[]).includes(status);

/** The caller's versions `pretrained` may name: their own succeeded trainings with weights, of any model. */
export function usePretrainedChoices() {
  return useQuery({
    queryKey: ['pretrained-choices'],
    queryFn: () => api.get<PretrainedListData>(TrainingPaths.pretrained),
  });
}

/** The model's trainings, newest first. */
export function useTrainings(modelId: string) {
  return useQuery({
    queryKey: trainingsKey(modelId),
    queryFn: () => api.get<TrainingListData>(trainingPath(TrainingPaths.list, modelId)),
  });
}

/**
 * One training with its epoch history (curves of a finished training, model info). A finished training never
 * changes; a running one is followed through the stream, or polled every `pollMs` when the stream is refused.
 */
export function useTrainingDetail(modelId: string, trainingId: number | undefined, options: { pollMs?: number; enabled?: boolean } = {}) {
  return useQuery({
    queryKey: detailKey(modelId, trainingId ?? 0),
    queryFn: () => api.get<TrainingDetailData>(trainingPath(TrainingPaths.one, modelId, trainingId)),
    enabled: trainingId !== undefined && (options.enabled ?? true),
    refetchInterval: options.pollMs,
    staleTime: options.pollMs ? 0 : Infinity,
  });
}

/** After a start, stop or resume: the list, the model's training status and counts are stale. */
export function useTrainingsChanged(modelId: string) {
  const client = useQueryClient();
  return (training?: TrainingData) => {
    if (training) {
      client.setQueryData<TrainingListData>(trainingsKey(modelId), (list) => {
        if (!list) return list;
        const known = list.items.some((t) => t.id === training.id);
        const items = known ? list.items.map((t) => (t.id === training.id ? training : t)) : [training, ...list.items];
        return { items, total: known ? list.total : list.total + 1 };
      });
    }
    void client.invalidateQueries({ queryKey: trainingsKey(modelId) });
    void client.invalidateQueries({ queryKey: modelsKey });
  };
}

/** Write what the live stream learned into the cached list, so the version table shows the same status. */
export function usePatchListedTraining(modelId: string) {
  const client = useQueryClient();
  return useCallback(
    (id: number, patch: Partial<TrainingData>) =>
      client.setQueryData<TrainingListData>(trainingsKey(modelId), (list) =>
        list ? { ...list, items: list.items.map((t) => (t.id === id ? { ...t, ...patch } : t)) } : list,
      ),
    [client, modelId],
  );
}

/** 8001 and 40002 are answered by the client (a notice with a button to /mark); other refusals go to the caller. */
export function useStartTraining(modelId: string) {
  const changed = useTrainingsChanged(modelId);
  return useMutation({
    mutationFn: (body: TrainingStartBody) => api.post<TrainingData>(trainingPath(TrainingPaths.list, modelId), body),
    onSuccess: changed,
  });
}

export function useStopTraining(modelId: string) {
  const changed = useTrainingsChanged(modelId);
  return useMutation({
    mutationFn: (trainingId: number) => api.post<TrainingData>(trainingPath(TrainingPaths.stop, modelId, trainingId)),
    onSuccess: changed,
    onError: () => changed(),
  });
}

export function useResumeTraining(modelId: string) {
  const changed = useTrainingsChanged(modelId);
  return useMutation({
    mutationFn: (trainingId: number) => api.post<TrainingData>(trainingPath(ResumePaths.resume, modelId, trainingId)),
    onSuccess: changed,
  });
}

/**
 * What a start would plan with the saved parameters (issue 31): time on this server, steps, warnings. Asked again
 * whenever the saved parameters, the rotated choice or the trainings change (a finished one adds a measurement).
 */
export function useTrainingEstimate(modelId: string, saved: SavedParamsData | undefined, rotated: boolean | undefined) {
  const trainings = useTrainings(modelId);
  const finished = trainings.data?.items.filter((t) => !isActive(t.status)).length ?? 0;
  return useQuery({
    queryKey: ['training-estimate', modelId, JSON.stringify(saved?.saved ?? null), rotated ?? null, finished],
    queryFn: () => api.post<TrainingEstimateData>(trainingPath(TrainingPaths.estimate, modelId), rotated === undefined ? {} : { rotated }, { silent: true }),
    enabled: saved !== undefined,
    retry: false,
  });
}

/** The saved parameters; only the keys the user set (the form fills in the defaults). */
export function useSavedParams(modelId: string) {
  return useQuery({
    queryKey: paramsKey(modelId),
    queryFn: () => api.get<SavedParamsData>(pathOf(ParameterPaths.params, { modelId })),
  });
}

/** Silent: the page says "parameter save failed" and puts the server's problems on their fields. */
export function useSaveParams(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (params: TrainingParamValues) =>
      api.put<SavedParamsData>(pathOf(ParameterPaths.params, { modelId }), { params }, { silent: true }),
    onSuccess: (data) => client.setQueryData(paramsKey(modelId), data),
  });
}

/** Silent: the page says "resetting parameters error". */
export function useResetParams(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<SavedParamsData>(pathOf(ParameterPaths.params, { modelId }), { silent: true }),
    onSuccess: (data) => client.setQueryData(paramsKey(modelId), data),
  });
}
