import { Button, Empty, Result, Spin } from 'antd';
import { Link } from 'react-router-dom';
import { useTranslation } from '@/i18n';
import type { ImageNavigation } from '../navigation/useImageNavigator';

/** What shows instead of the image while the list loads, when the model has no images, or on failure. */
export function PageState({ nav, onRetry }: { nav: ImageNavigation; onRetry: () => void }) {
  const { t } = useTranslation('mark');
  if (nav.status === 'loading') return <Spin size="large" className="loupe-mark-spin" data-testid="mark-loading" />;
  // On a light panel: the stage behind is dark, and Ant Design's texts are dark (issue 31: unreadable before).
  if (nav.status === 'empty')
    return (
      <div className="loupe-mark-state">
        <Empty description={t('empty')} data-testid="mark-empty">
          <Link to="/gallery">{t('toGallery')}</Link>
        </Empty>
      </div>
    );
  return (
    <div className="loupe-mark-state">
      <Result
        status="warning"
        title={t('loadFailed')}
        extra={
          <Button onClick={onRetry} data-testid="mark-reload">
            {t('save.retry')}
          </Button>
        }
      />
    </div>
  );
}
