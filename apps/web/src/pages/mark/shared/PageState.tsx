import { Button, Empty, Result, Spin } from 'antd';
import { Link } from 'react-router-dom';
import { useTranslation } from '@/i18n';
import type { ImageNavigation } from '../navigation/useImageNavigator';

/** What shows instead of the image while the list loads, when the model has no images, or on failure. */
export function PageState({ nav, onRetry }: { nav: ImageNavigation; onRetry: () => void }) {
  const { t } = useTranslation('mark');
  if (nav.status === 'loading') return <Spin size="large" className="loupe-mark-spin" data-testid="mark-loading" />;
  if (nav.status === 'empty')
    return (
      <Empty description={t('empty')} data-testid="mark-empty">
        <Link to="/gallery">{t('toGallery')}</Link>
      </Empty>
    );
  return (
    <Result
      status="warning"
      title={t('loadFailed')}
      extra={
        <Button onClick={onRetry} data-testid="mark-reload">
          {t('save.retry')}
        </Button>
      }
    />
  );
}
