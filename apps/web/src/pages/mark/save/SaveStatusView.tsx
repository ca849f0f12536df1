import { memo } from 'react';
import { Button, Space, Typography } from 'antd';
import { CheckCircleOutlined, ExclamationCircleOutlined, LoadingOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';
import type { SaveStatus } from './saveQueue';

/** "Saving…", "All changes saved" or "Not saved" with a retry (test id mark-save-status, data-status). */
export const SaveStatusView = memo(function SaveStatusView({ status, onRetry }: { status: SaveStatus; onRetry?: () => void }) {
  const { t } = useTranslation('mark');
  return (
    <Space size={4} data-testid="mark-save-status" data-status={status} aria-live="polite">
      {status === 'saving' && <LoadingOutlined />}
      {status === 'saved' && <CheckCircleOutlined style={{ color: '#52c41a' }} />}
      {status === 'failed' && <ExclamationCircleOutlined style={{ color: '#ff4d4f' }} />}
      <Typography.Text type={status === 'failed' ? 'danger' : 'secondary'}>{t(`save.${status}`)}</Typography.Text>
      {status === 'failed' && onRetry && (
        <Button size="small" onClick={onRetry} data-testid="mark-save-retry">
          {t('save.retry')}
        </Button>
      )}
    </Space>
  );
});
