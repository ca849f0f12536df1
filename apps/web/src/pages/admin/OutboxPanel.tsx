import { useState } from 'react';
import { Alert, Button, Descriptions, Input, Modal, Space, Table, Typography, type TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import type { OutboxMail } from '@loupe/contracts';
import { currentLanguage } from '@/i18n';
import { errorText } from '@/pages/auth/shared/FormError';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useOutbox, useResendMail } from './accountsApi';
import { copyText } from './clipboard';

const PAGE_SIZE = 20;

/**
 * The mail outbox (issue 31 item 1): without SMTP, activation, reset and review mails are only kept here, so an
 * administrator reads them, copies a link to pass on, or sends one again (through SMTP once it is configured).
 */
export function OutboxPanel() {
  const { t } = useTranslation('admin');
  const { message } = useNotify();
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(PAGE_SIZE);
  const [open, setOpen] = useState<OutboxMail | null>(null);
  const outbox = useOutbox(search, page, pageSize);
  const resend = useResendMail();
  const when = (d: string) => new Date(d).toLocaleString(currentLanguage());
  // Errors the client already reacted to (relogin, contact sales) are marked handled; the rest are shown here.
  const showError = (e: unknown) => {
    if (!(e as { handled?: boolean }).handled) void message.error(errorText(e));
  };

  const copy = async (link: string) => {
    if (await copyText(link)) void message.success(t('outbox.copied'));
    else void message.error(t('outbox.copyFailed'));
  };
  const send = (mail: OutboxMail) =>
    resend
      .mutateAsync(mail.id)
      .then((r) => {
        void message.success(t(r.freshLink ? 'outbox.resentFresh' : 'outbox.resent', { email: mail.to }));
        setOpen(null);
        setPage(1);
      })
      // The refusal (a dead link, a failed SMTP delivery) comes in the user's language.
      .catch((e: unknown) => showError(e));

  const actions = (mail: OutboxMail, where: string) => (
    <Space wrap>
      {mail.link && (
        <Button size="small" onClick={() => void copy(mail.link!)} data-testid={`outbox-copy${where}`}>
          {t('outbox.copyLink')}
        </Button>
      )}
      <Button
        size="small"
        loading={resend.isPending && resend.variables === mail.id}
        onClick={() => void send(mail)}
        data-testid={`outbox-resend${where}`}
      >
        {t('outbox.resend')}
      </Button>
    </Space>
  );

  const columns: TableColumnsType<OutboxMail> = [
    { title: t('outbox.sentAt'), dataIndex: 'createdAt', render: when, width: '12rem' },
    { title: t('outbox.to'), dataIndex: 'to' },
    {
      title: t('outbox.subject'),
      dataIndex: 'subject',
      render: (subject: string, mail) => (
        <Button type="link" style={{ padding: 0, height: 'auto', whiteSpace: 'normal', textAlign: 'start' }} onClick={() => setOpen(mail)} data-testid="outbox-open">
          {subject}
        </Button>
      ),
    },
    { title: t('users.actions'), key: 'actions', render: (_, mail) => actions(mail, '') },
  ];

  const data = outbox.data;
  return (
    <div data-testid="outbox">
      {data && (
        <Alert
          type={data.transport === 'smtp' ? 'success' : 'warning'}
          showIcon
          title={t(data.transport === 'smtp' ? 'outbox.smtpOn' : 'outbox.smtpOff')}
          description={t(data.transport === 'smtp' ? 'outbox.smtpOnHint' : 'outbox.smtpOffHint')}
          style={{ marginBottom: '1rem' }}
          data-testid={`outbox-transport-${data.transport}`}
        />
      )}
      <Input.Search
        allowClear
        placeholder={t('outbox.search')}
        onSearch={(v) => {
          setSearch(v.trim());
          setPage(1);
        }}
        style={{ maxWidth: '24rem', marginBottom: '1rem' }}
        data-testid="outbox-search"
      />
      <Table<OutboxMail>
        rowKey="id"
        size="middle"
        loading={outbox.isFetching}
        dataSource={data?.items ?? []}
        columns={columns}
        scroll={{ x: true }}
        locale={{ emptyText: t(search ? 'outbox.noMatch' : 'outbox.empty') }}
        pagination={{
          current: page,
          pageSize,
          total: data?.total ?? 0,
          showSizeChanger: true,
          pageSizeOptions: [10, 20, 50, 100],
          showTotal: (total) => t('outbox.total', { count: total }),
          onChange: (p, s) => {
            setPage(s !== pageSize ? 1 : p);
            setPageSize(s);
          },
        }}
        onRow={(mail) => ({ 'data-testid': `outbox-row-${mail.to}` }) as object}
      />
      <Modal
        open={open !== null}
        title={open?.subject}
        onCancel={() => setOpen(null)}
        footer={open ? actions(open, '-dialog') : null}
        width={720}
      >
        {open && (
          <div data-testid="outbox-mail">
            <Descriptions column={1} size="small" style={{ marginBottom: '1rem' }}>
              <Descriptions.Item label={t('outbox.to')}>{open.to}</Descriptions.Item>
              <Descriptions.Item label={t('outbox.sentAt')}>{when(open.createdAt)}</Descriptions.Item>
              {open.link && (
                <Descriptions.Item label={t('outbox.link')}>
                  <Typography.Text code style={{ wordBreak: 'break-all' }} data-testid="outbox-mail-link">
                    {open.link}
                  </Typography.Text>
                </Descriptions.Item>
              )}
            </Descriptions>
            <pre style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', fontFamily: 'inherit', margin: 0 }} data-testid="outbox-mail-text">
              {open.text}
            </pre>
          </div>
        )}
      </Modal>
    </div>
  );
}
