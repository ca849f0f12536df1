import { memo } from 'react';
import { Button, Space, Tooltip, Typography } from 'antd';
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';
import { positionOf } from './position';
import type { ImageNavigation } from './useImageNavigator';

interface Props {
  nav: ImageNavigation;
  onStep: (direction: -1 | 1) => void;
}

/** Previous/next, "n / total" and the image's file name. */
export const NavigationBar = memo(function NavigationBar({ nav, onStep }: Props) {
  const { t } = useTranslation('mark');
  const { n, total } = positionOf(nav.image ? nav.index : null, nav.total);
  return (
    <Space className="loupe-mark-nav" data-testid="mark-nav">
      <Tooltip title={t('nav.prevHint')}>
        <Button icon={<LeftOutlined />} onClick={() => onStep(-1)} disabled={!nav.image} data-testid="mark-prev">
          {t('nav.prev')}
        </Button>
      </Tooltip>
      <Typography.Text data-testid="mark-position" data-n={n} data-total={total}>
        {t('nav.position', { n, total })}
      </Typography.Text>
      <Tooltip title={t('nav.nextHint')}>
        <Button icon={<RightOutlined />} iconPlacement="end" onClick={() => onStep(1)} disabled={!nav.image} data-testid="mark-next">
          {t('nav.next')}
        </Button>
      </Tooltip>
      <Typography.Text strong ellipsis={{ tooltip: nav.image?.name }} className="loupe-mark-image-name" data-testid="mark-image-name">
        {nav.image?.name ?? ''}
      </Typography.Text>
    </Space>
  );
});
