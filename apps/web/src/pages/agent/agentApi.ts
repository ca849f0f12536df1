import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AgentPaths,
  TerminalAgentPhases,
  type AgentPhase,
  type AgentRunData,
  type AgentRunDetailData,
  type AgentRunListData,
  type AgentStartBody,
  type TestAnalysisData,
} from '@loupe/contracts';
import { api } from '@/api/client';
import { pathOf } from '@/pages/gallery/galleryApi';

export const agentsKey = (modelId: string) => ['agents', modelId] as const;
const detailKey = (modelId: string, agentId: number) => [...agentsKey(modelId), 'one', agentId] as const;

export const agentPath = (path: string, modelId: string, agentId?: number) =>
  pathOf(path, agentId === undefined ? { modelId } : { modelId, agentId });

export const isTerminalPhase = (phase: AgentPhase) => TerminalAgentPhases.includes(phase);

/** The model's agent runs, newest first. */
export function useAgentRuns(modelId: string) {
  return useQuery({
    queryKey: agentsKey(modelId),
    queryFn: () => api.get<AgentRunListData>(agentPath(AgentPaths.list, modelId)),
  });
}

/** One run with its trials and log: read once for a finished run, every `pollMs` while the stream is refused. */
export function useAgentDetail(modelId: string, agentId: number, options: { pollMs?: number; enabled: boolean }) {
  return useQuery({
    queryKey: detailKey(modelId, agentId),
    queryFn: () => api.get<AgentRunDetailData>(agentPath(AgentPaths.one, modelId, agentId)),
    enabled: options.enabled,
    refetchInterval: options.pollMs,
  });
}

/** Puts a run's new state into the cached list, so the history and the start form follow at once. */
export function useAgentRunChanged(modelId: string) {
  const client = useQueryClient();
  return (run: AgentRunData) => {
    client.setQueryData<AgentRunListData>(agentsKey(modelId), (list) => {
      if (!list) return list;
      const known = list.items.some((r) => r.id === run.id);
      const items = known ? list.items.map((r) => (r.id === run.id ? run : r)) : [run, ...list.items];
      return { items, total: known ? list.total : list.total + 1 };
    });
    // The end of a run changes what the model allows (a new start, its versions): ask the server once then.
    if (isTerminalPhase(run.phase)) void client.invalidateQueries({ queryKey: agentsKey(modelId) });
  };
}

/** Refusals (a training or agent already running, no labelled images…) get the client's SPEC §8 reactions. */
export function useStartAgent(modelId: string) {
  const changed = useAgentRunChanged(modelId);
  return useMutation({
    mutationFn: (body: AgentStartBody) => api.post<AgentRunData>(agentPath(AgentPaths.list, modelId), body),
    onSuccess: changed,
  });
}

export function useStopAgent(modelId: string) {
  const changed = useAgentRunChanged(modelId);
  return useMutation({
    mutationFn: (agentId: number) => api.post<AgentRunData>(agentPath(AgentPaths.stop, modelId, agentId)),
    onSuccess: changed,
  });
}

/** The suggested confidences of the recommended version come with its test's analysis; silent: they are extra. */
export function useTestSuggestion(modelId: string, testId: number | undefined) {
  return useQuery({
    queryKey: ['test-analysis', modelId, testId ?? 0],
    queryFn: () => api.get<TestAnalysisData>(pathOf(AgentPaths.testAnalysis, { modelId, testId: testId ?? 0 }), { silent: true }),
    enabled: testId !== undefined,
    staleTime: Infinity,
  });
}
