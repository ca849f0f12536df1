import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AuthPaths,
  type AccountStatus,
  type AdminAccount,
  type AdminAccountSettingsBody,
  type OutboxPage,
  type OutboxResendData,
} from '@loupe/contracts';
import { api } from '@/api/client';

const accountsKey = ['admin-accounts'] as const;
const outboxKey = ['admin-outbox'] as const;

/** GET /api/admin/accounts?status=…&q=…; no status lists every account, q searches name, email and company. */
export function useAccounts(status: AccountStatus | 'all', search = '') {
  return useQuery({
    queryKey: [...accountsKey, status, search],
    queryFn: () =>
      api.get<AdminAccount[]>(AuthPaths.adminAccounts, {
        params: { status: status === 'all' ? undefined : status, q: search || undefined },
      }),
    placeholderData: keepPreviousData,
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

/** PUT …/:id/settings: download permission and training priority; the lists refetch either way. */
export function useAccountSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: AdminAccountSettingsBody }) =>
      api.put<AdminAccount>(AuthPaths.adminAccountSettings.replace(':id', String(id)), body),
    onSettled: () => client.invalidateQueries({ queryKey: accountsKey }),
  });
}

/** GET /api/admin/outbox/page: one page of mails, newest first, and whether mail leaves the server. */
export function useOutbox(search: string, page: number, pageSize: number) {
  return useQuery({
    queryKey: [...outboxKey, search, page, pageSize],
    queryFn: () => api.get<OutboxPage>(AuthPaths.adminOutboxPage, { params: { q: search || undefined, page, pageSize } }),
    placeholderData: keepPreviousData,
  });
}

/** POST /api/admin/outbox/:id/resend; the resent mail is a new row, so the list refetches. */
export function useResendMail() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api.post<OutboxResendData>(AuthPaths.adminOutboxResend.replace(':id', String(id))),
    onSettled: () => client.invalidateQueries({ queryKey: outboxKey }),
  });
}
