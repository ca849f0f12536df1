import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { TrainingPaths, VersionPaths, type SuggestedConfidences, type TrainingData, type TrainingListData, type VersionListData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';

/**
 * The versions a test or an export can use: the model's succeeded trainings with weights, the one in use (the
 * default version) first, then newest first.
 * Shared by /test and /download/*.
 */
export function useSucceededTrainings(modelId: string) {
  const query = useQuery({
    queryKey: ['trainings', modelId, 'list'],
    queryFn: () => api.get<TrainingListData>(pathOf(TrainingPaths.list, { modelId })),
  });
  // The version in use (the user's default version, else the latest): the forms start from it (issue 31 item 4).
  // Without an answer the newest comes first, as before.
  const inUse = useQuery({
    queryKey: ['versions', modelId],
    queryFn: () => api.get<VersionListData>(pathOf(VersionPaths.list, { modelId }), { silent: true }),
    retry: false,
  });
  const inUseId = inUse.data?.effectiveTrainingId ?? null;
  const versions = useMemo(() => usableVersions(query.data?.items ?? [], inUseId), [query.data, inUseId]);
  const suggested = useMemo(() => suggestedById(inUse.data), [inUse.data]);
  return { ...query, versions, suggested };
}

/** Succeeded versions with weights, newest first, except the one in use (the default version), which leads. */
export function usableVersions(items: readonly TrainingData[], inUseId: number | null = null): TrainingData[] {
  const usable = items.filter((t) => t.status === 'succeeded' && t.hasWeights).sort((a, b) => b.serialNo - a.serialNo);
  const lead = usable.find((t) => t.id === inUseId);
  return lead ? [lead, ...usable.filter((t) => t !== lead)] : usable;
}

/** The agent's suggested confidences per version (VersionData.suggested; issue 35), for the versions that have them. */
export function suggestedById(list: VersionListData | undefined): ReadonlyMap<number, SuggestedConfidences> {
  const found = new Map<number, SuggestedConfidences>();
  for (const v of list?.items ?? []) if (v.suggested) found.set(v.id, v.suggested);
  return found;
}
