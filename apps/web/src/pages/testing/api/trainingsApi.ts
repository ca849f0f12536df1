import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { TrainingPaths, type TrainingData, type TrainingListData } from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';

/**
 * The versions a test or an export can use: the model's succeeded trainings with weights, newest first.
 * Shared by /test and /download/*.
 */
export function useSucceededTrainings(modelId: string) {
  const query = useQuery({
    queryKey: ['trainings', modelId, 'list'],
    queryFn: () => api.get<TrainingListData>(pathOf(TrainingPaths.list, { modelId })),
  });
  const versions = useMemo(() => usableVersions(query.data?.items ?? []), [query.data]);
  return { ...query, versions };
}

export function usableVersions(items: readonly TrainingData[]): TrainingData[] {
  return items.filter((t) => t.status === 'succeeded' && t.hasWeights).sort((a, b) => b.serialNo - a.serialNo);
}
