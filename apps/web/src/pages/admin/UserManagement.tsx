import { useRef, useState } from 'react';
import { Button, Card, Input, InputNumber, Segmented, Space, Switch, Table, Tabs, Tag, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { AccountStatuses, AdminAccountSettingsBody, Roles, type AccountStatus, type AdminAccount } from '@loupe/contracts';
import { currentLanguage } from '@/i18n';
import { countryName } from '@/pages/auth/shared/countries';
import { errorText } from '@/pages/auth/shared/FormError';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useAccountSettings, useAccounts, useReview, type Decision } from './accountsApi';
import { OutboxPanel } from './OutboxPanel';

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

/** The bounds the server validates (AdminAccountSettingsBody), so the field refuses what the server would. */
const PRIORITY = AdminAccountSettingsBody.properties.trainingPriority as unknown as { minimum: number; maximum: number };

const TABS = ['accounts', 'outbox'] as const;
type TabKey = (typeof TABS)[number];

/**
 * /userManagement: review registrations, pending ones first (SPEC §6: accounts are reviewed before login), grant
 * download permission and training priority, and (tab ?tab=outbox) the mail outbox a default install without
 * SMTP needs to onboard anyone (issue 31 item 1).
 */
export default function UserManagement() {
  const { t } = useTranslation('admin');
  const [params, setParams] = useSearchParams();
  const tab: TabKey = params.get('tab') === 'outbox' ? 'outbox' : 'accounts';
  return (
    <Card title={t('users.title')} data-testid="user-management">
      <Tabs
        activeKey={tab}
        onChange={(key) => setParams(key === 'accounts' ? {} : { tab: key }, { replace: true })}
        items={TABS.map((key) => ({
          key,
          label: <span data-testid={`tab-${key}`}>{t(`tabs.${key}`)}</span>,
          children: key === 'accounts' ? <Accounts /> : <OutboxPanel />,
        }))}
      />
    </Card>
  );
}

function Accounts() {
  const { t } = useTranslation('admin');
  const { message, modal } = useNotify();
  const [filter, setFilter] = useState<Filter>('pending');
  const [search, setSearch] = useState('');
  const accounts = useAccounts(filter, search);
  const review = useReview();
  const settings = useAccountSettings();
  // Refusals the client already reacted to (relogin, contact sales) are marked handled; the rest are shown here.
  const showError = (e: unknown) => {
    if (!(e as { handled?: boolean }).handled) void message.error(errorText(e));
  };

  const save = (account: AdminAccount, body: { downloadPermission?: boolean; trainingPriority?: number }) =>
    settings
      .mutateAsync({ id: account.id, body })
      .then(() => {
        void message.success(t('users.settingsSaved', { email: account.email }));
        return true;
      })
      .catch((e: unknown) => {
        showError(e);
        return false;
      });
  // The field shows a value out of bounds clamped (42 → 10) once it loses focus; what it shows is what is saved.
  // Compared with the last value sent, not the listed one: until the list refetches, the row still holds the value
  // from before the last save (5 → 10 → 5 typed quickly would otherwise skip the second save).
  const sentPriority = useRef(new Map<number, number>());
  const savePriority = (account: AdminAccount, value: number | null) => {
    if (value === null || !Number.isFinite(value)) return;
    const clamped = Math.min(PRIORITY.maximum, Math.max(PRIORITY.minimum, Math.round(value)));
    if (clamped === (sentPriority.current.get(account.id) ?? account.trainingPriority)) return;
    sentPriority.current.set(account.id, clamped);
    void save(account, { trainingPriority: clamped }).then((saved) => {
      if (!saved) sentPriority.current.delete(account.id);
    });
  };

  const decide = (account: AdminAccount, decision: Decision) => {
    const done = t(decision === 'approve' ? 'users.approvedMsg' : 'users.rejectedMsg', { email: account.email });
    const run = () =>
      review
        .mutateAsync({ id: account.id, decision })
        .then(() => void message.success(done))
        // A refusal (say, another administrator decided first) is shown; the list refetches either way.
        .catch(showError);
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
      title: t('users.download'),
      key: 'download',
      render: (_, a) => (
        <Switch
          checked={!!a.downloadPermission}
          loading={settings.isPending && settings.variables?.id === a.id && settings.variables.body.downloadPermission !== undefined}
          onChange={(on) => void save(a, { downloadPermission: on })}
          aria-label={t('users.download')}
          data-testid={`download-${a.email}`}
        />
      ),
    },
    {
      title: t('users.priority'),
      key: 'priority',
      render: (_, a) => (
        <InputNumber<number>
          // Keyed by the saved value: a refused or reverted edit shows the server's value again after refetch.
          key={`${a.id}-${a.trainingPriority}`}
          defaultValue={a.trainingPriority ?? 0}
          min={PRIORITY.minimum}
          max={PRIORITY.maximum}
          precision={0}
          size="small"
          style={{ width: '4.5rem' }}
          aria-label={t('users.priority')}
          onBlur={(e) => savePriority(a, e.target.value === '' ? null : Number(e.target.value))}
          onPressEnter={(e) => savePriority(a, Number((e.target as HTMLInputElement).value))}
          data-testid={`priority-${a.email}`}
        />
      ),
    },
    {
      title: t('users.status'),
      dataIndex: 'status',
      render: (s: AccountStatus) => <Tag color={STATUS_COLOR[s]}>{t(`status.${s}`)}</Tag>,
    },
    {
      title: t('users.actions'),
      key: 'actions',
      // Kept in view while the wide table scrolls sideways.
      fixed: 'right',
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
    <>
      <Space wrap style={{ marginBottom: '1rem' }}>
        <Segmented<Filter>
          value={filter}
          onChange={setFilter}
          options={FILTERS.map((s) => ({ value: s, label: t(`status.${s}`) }))}
          data-testid="users-filter"
        />
        <Input.Search
          allowClear
          placeholder={t('users.search')}
          onSearch={(v) => setSearch(v.trim())}
          style={{ width: '20rem', maxWidth: '100%' }}
          data-testid="users-search"
        />
      </Space>
      <Table<AdminAccount>
        rowKey="id"
        size="middle"
        loading={accounts.isFetching}
        dataSource={accounts.data ?? []}
        columns={columns}
        scroll={{ x: true }}
        locale={{ emptyText: t(search ? 'users.noMatch' : 'users.empty') }}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        onRow={(a) => ({ 'data-testid': `account-${a.email}` }) as object}
      />
    </>
  );
}
