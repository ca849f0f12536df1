import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ExportPaths, type ExportStartBody, type PackKind, type PackStatusData } from '@loupe/contracts';
import { api } from '@/api/client';

/** Packing takes minutes (SPEC §9: 5–10); a status read every 2 s is cheap and feels live. */
export const PACK_POLL_MS = 2000;

export const packStatusKey = (modelId: string, kind: PackKind) => ['packStatus', modelId, kind] as const;

/** The model's latest pack of this kind (SPEC §7), re-read while it is packing. */
export function usePackStatus(modelId: string, kind: PackKind) {
  return useQuery({
    queryKey: packStatusKey(modelId, kind),
    queryFn: () => api.get<PackStatusData>(ExportPaths.status, { params: { modelId, kind } }),
    refetchInterval: (query) => (query.state.data?.packStatus === 'packing' ? PACK_POLL_MS : false),
  });
}

/**
 * POST the export. Not silent: 8006 and 9002 get the client's notice with its button to /train, 8008 the
 * contact-sales notice; the page shows the rest (export failed, validation).
 */
export function useStartPack(modelId: string, kind: PackKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ExportStartBody) => api.post<PackStatusData>(ExportPaths.pack, body),
    onSuccess: (data) => client.setQueryData(packStatusKey(modelId, kind), data),
  });
}
