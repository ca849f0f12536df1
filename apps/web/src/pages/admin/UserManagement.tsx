import { useState } from 'react';
import { Button, Card, Segmented, Space, Table, Tag, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { AccountStatuses, Roles, type AccountStatus, type AdminAccount } from '@loupe/contracts';
import { currentLanguage } from '@/i18n';
import { countryName } from '@/pages/auth/shared/countries';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useAccounts, useReview, type Decision } from './accountsApi';

type Filter = AccountStatus | 'all';

/** Pending first: reviewing is what this page is for. */
const FILTERS: Filter[] = ['pending', ...AccountStatuses.filter((s) => s !== 'pending'), 'all'];

const STATUS_COLOR: Record<AccountStatus, string> = {
  unactivated: 'default',
  pending: 'gold',
  approved: 'green',
  rejected: 'red',
};

/** Which decisions the server accepts from each state (it re-checks): approve a rejection, revoke an approval. */
const DECISIONS: Record<AccountStatus, Decision[]> = {
  unactivated: [],
  pending: ['approve', 'reject'],
  approved: ['reject'],
  rejected: ['approve'],
};

/** /userManagement: review registrations, pending ones first (SPEC §6: accounts are reviewed before login). */
export default function UserManagement() {
  const { t } = useTranslation('admin');
  const { message, modal } = useNotify();
  const [filter, setFilter] = useState<Filter>('pending');
  const accounts = useAccounts(filter);
  const review = useReview();

  const decide = (account: AdminAccount, decision: Decision) => {
    const done = t(decision === 'approve' ? 'users.approvedMsg' : 'users.rejectedMsg', { email: account.email });
    const run = () =>
      review
        .mutateAsync({ id: account.id, decision })
        .then(() => void message.success(done))
        // A refusal (say, another administrator decided first) is already shown by the client; the list refetches.
        .catch(() => undefined);
    if (decision === 'approve') return void run();
    // Rejecting mails the applicant and ends their sessions, so it is confirmed first.
    modal.confirm({
      title: t('users.rejectTitle'),
      content: t('users.rejectBody', { email: account.email }),
      okText: t('users.reject'),
      okButtonProps: { danger: true, 'data-testid': 'reject-confirm' } as { danger: boolean },
      cancelText: t('users.cancel'),
      onOk: run,
    });
  };

  const columns: TableColumnsType<AdminAccount> = [
    { title: t('users.name'), key: 'name', render: (_, a) => `${a.firstName} ${a.lastName}`.trim() },
    { title: t('users.email'), dataIndex: 'email' },
    { title: t('users.company'), dataIndex: 'company' },
    { title: t('users.phone'), dataIndex: 'phone' },
    { title: t('users.country'), dataIndex: 'country', render: (c: string) => (c ? countryName(c, currentLanguage()) : '') },
    { title: t('users.jobTitle'), dataIndex: 'jobTitle' },
    { title: t('users.createdAt'), dataIndex: 'createdAt', render: (d: string) => new Date(d).toLocaleString(currentLanguage()) },
    {
      title: t('users.status'),
      dataIndex: 'status',
      render: (s: AccountStatus) => <Tag color={STATUS_COLOR[s]}>{t(`status.${s}`)}</Tag>,
    },
    {
      title: t('users.actions'),
      key: 'actions',
      render: (_, a) =>
        a.role === Roles.admin ? null : (
          <Space>
            {DECISIONS[a.status as AccountStatus].map((d) => (
              <Button
                key={d}
                size="small"
                type={d === 'approve' ? 'primary' : 'default'}
                danger={d === 'reject'}
                loading={review.isPending && review.variables?.id === a.id && review.variables.decision === d}
                onClick={() => decide(a, d)}
                data-testid={`${d}-${a.email}`}
              >
                {t(`users.${d}`)}
              </Button>
            ))}
          </Space>
        ),
    },
  ];

  return (
    <Card title={t('users.title')} data-testid="user-management">
      <Segmented<Filter>
        value={filter}
        onChange={setFilter}
        options={FILTERS.map((s) => ({ value: s, label: t(`status.${s}`) }))}
        style={{ marginBottom: '1rem' }}
        data-testid="users-filter"
      />
      <Table<AdminAccount>
        rowKey="id"
        size="middle"
        loading={accounts.isFetching}
        dataSource={accounts.data ?? []}
        columns={columns}
        scroll={{ x: true }}
        locale={{ emptyText: t('users.empty') }}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        onRow={(a) => ({ 'data-testid': `account-${a.email}` }) as object}
      />
    </Card>
  );
}
