import { useQuery } from '@tanstack/react-query';
import { AuthPaths, type PublicConfig } from '@loupe/contracts';
import { api } from '@/api/client';
import type { Deployment } from '@/routes/table';

/** GET /api/config decides the route set and sign-in page before anyone logs in. */
export function useConfig() {
  return useQuery({
    queryKey: ['config'],
    queryFn: () => api.get<PublicConfig>(AuthPaths.config, { silent: true }),
    staleTime: Infinity,
    retry: 1,
  });
}

/** Cloud unless the server says otherwise: a server that cannot answer should not unlock private pages. */
export function useDeployment(): Deployment {
  return useConfig().data?.deployment ?? 'cloud';
}
