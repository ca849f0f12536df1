import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AuthPaths, type AccountStatus, type AdminAccount } from '@loupe/contracts';
import { api } from '@/api/client';

const accountsKey = ['admin-accounts'] as const;

/** GET /api/admin/accounts?status=…; no status lists every account. */
export function useAccounts(status: AccountStatus | 'all') {
  return useQuery({
    queryKey: [...accountsKey, status],
    queryFn: () => api.get<AdminAccount[]>(AuthPaths.adminAccounts, { params: { status: status === 'all' ? undefined : status } }),
  });
}

export type Decision = 'approve' | 'reject';

/** POST …/:id/approve|reject, then every status list is refetched since the account moved between them. */
export function useReview() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, decision }: { id: number; decision: Decision }) =>
      api.post<AdminAccount>((decision === 'approve' ? AuthPaths.adminApprove : AuthPaths.adminReject).replace(':id', String(id))),
    onSettled: () => client.invalidateQueries({ queryKey: accountsKey }),
  });
}
