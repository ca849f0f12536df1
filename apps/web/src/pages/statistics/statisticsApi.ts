import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AgentPaths,
  Errors,
  TestPaths,
  type AnalysisFixData,
  type AnalysisStatus,
  type DatasetAnalysisData,
  type FindingFix,
  type TestAnalysisData,
  type TestRunListData,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { isApiError } from '@/api/errors';
import { pathOf } from '@/pages/gallery/galleryApi';

/** How often a queued or running analysis is asked again (SPEC §4 states advance in seconds, not minutes). */
export const ANALYSIS_POLL_MS = 2000;

const analysisKey = (modelId: string) => ['analysis', modelId] as const;

export const isAnalysisActive = (status: AnalysisStatus | undefined) => status === 'queued' || status === 'running';

/** The model's stored analysis, or null when it was never analysed (40107 is an empty state, not an error). */
async function fetchAnalysis(modelId: string): Promise<DatasetAnalysisData | null> {
  try {
    return await api.get<DatasetAnalysisData>(pathOf(AgentPaths.analysis, { modelId }), { silent: true });
  } catch (e) {
    if (isApiError(e) && e.code === Errors.analysisNotFound.code) return null;
    throw e;
  }
}

/** The analysis, polled every 2 s while it is queued or running, then left alone. */
export function useAnalysis(modelId: string) {
  return useQuery({
    queryKey: analysisKey(modelId),
    queryFn: () => fetchAnalysis(modelId),
    refetchInterval: (query) => (isAnalysisActive(query.state.data?.status) ? ANALYSIS_POLL_MS : false),
  });
}

/** POST: queues an analysis (or answers the stored one when the data did not change and force is not set). */
export function useStartAnalysis(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (force: boolean) => api.post<DatasetAnalysisData>(pathOf(AgentPaths.analysis, { modelId }), force ? { force } : {}),
    onSuccess: (data) => client.setQueryData(analysisKey(modelId), data),
  });
}

/** One finding's safe fix; the analysis (now stale) and the gallery's lists are read again. */
export function useFix(modelId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ analysisId, fix }: { analysisId: number; fix: FindingFix }) =>
      api.post<AnalysisFixData>(pathOf(AgentPaths.analysisFix, { modelId, analysisId }), { fix }),
    onSettled: () =>
      Promise.all([client.invalidateQueries({ queryKey: analysisKey(modelId) }), client.invalidateQueries({ queryKey: ['images', modelId] })]),
  });
}

/** The model's test runs that finished and can be analysed. */
export function useFinishedRuns(modelId: string) {
  return useQuery({
    queryKey: ['tests', modelId, 'list'],
    queryFn: () => api.get<TestRunListData>(pathOf(TestPaths.list, { modelId })),
    select: (data) => data.items.filter((r) => r.status === 'succeeded'),
  });
}

/** TestAnalysisData of one run at `conf` (undefined: the run's own confidence). */
export function useTestAnalysis(modelId: string, testId: number | undefined, conf: number | undefined) {
  return useQuery({
    queryKey: ['testAnalysis', modelId, testId, conf ?? null],
    queryFn: () =>
      api.get<TestAnalysisData>(pathOf(AgentPaths.testAnalysis, { modelId, testId: testId! }), { params: { conf }, silent: true }),
    enabled: testId !== undefined,
    // Moving the slider keeps the last figures on screen until the new ones arrive.
    placeholderData: (previous) => previous,
  });
}
