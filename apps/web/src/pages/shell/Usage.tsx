import { Empty, Typography } from 'antd';
import { useTranslation } from '@/i18n';

/** Usage figures arrive with the billing issue; until then the page says so. */
export function Usage() {
  const { t } = useTranslation(['routes', 'layout']);
  return (
    <div className="loupe-page" data-testid="usage-page">
      <Typography.Title level={3} data-testid="page-title">
        {t('usage')}
      </Typography.Title>
      <Empty description={t('layout:usage.empty')} />
    </div>
  );
}
