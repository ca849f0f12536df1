import { Button, Tooltip } from 'antd';
import { QuestionCircleOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';

/** Reopens the page's first-use guide. */
export function HelpButton({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation('mark');
  return (
    <Tooltip title={t('guide.reopen')}>
      <Button icon={<QuestionCircleOutlined />} onClick={onClick} aria-label={t('guide.reopen')} data-testid="mark-help" />
    </Tooltip>
  );
}
