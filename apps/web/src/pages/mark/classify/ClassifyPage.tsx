import { useCallback } from 'react';
import { Card, Col, Row, Space, Typography } from 'antd';
import { LabelingLimits } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useLabels, withToken } from '@/pages/gallery/galleryApi';
import { MarkGuide, useGuide } from '../guide/MarkGuide';
import { NavigationBar } from '../navigation/NavigationBar';
import { useStartImageId, useSyncImageId } from '../navigation/useImageIdParam';
import { useImageNavigator } from '../navigation/useImageNavigator';
import { SaveStatusView } from '../save/SaveStatusView';
import { HelpButton } from '../shared/HelpButton';
import { PageState } from '../shared/PageState';
import { useNotice } from '../shared/useNotice';
import { digitOf, directionOf, useShortcutKeys } from '../shared/useShortcutKeys';
import { ClassPanel } from './ClassPanel';
import { useClassAssign } from './useClassAssign';

/**
 * /mark for classification models: one class per image. Clicking a label or pressing 1–9 sets the class and opens
 * the next image; 0 or Clear removes it.
 */
export function ClassifyPage({ modelId }: { modelId: string }) {
  const { t } = useTranslation('mark');
  const showError = useShowError();
  const notice = useNotice();
  const guide = useGuide('classification');
  const labels = useLabels(modelId);
  const nav = useImageNavigator(modelId, useStartImageId(), showError);
  useSyncImageId(nav.image?.id);
  const { assign, retry, status } = useClassAssign(modelId, nav.replaceImage);
  const items = labels.data ?? [];

  const { go, image, index, moving } = nav;
  const stepTo = useCallback(
    (direction: -1 | 1) => {
      const end = go(direction);
      if (end) notice(end);
    },
    [go, notice],
  );

  const classify = useCallback(
    (labelId: number | null) => {
      // Until the next image shows, a key would classify the one the user already moved away from.
      if (!image || moving) return;
      assign({ image, index }, labelId);
      // Setting a class moves on (quick labeling); clearing one stays to pick another.
      if (labelId !== null) stepTo(1);
    },
    [assign, image, index, moving, stepTo],
  );

  useShortcutKeys((event) => {
    if (guide.open) return false;
    const digit = digitOf(event);
    if (digit === 0) return classify(null), true;
    if (digit !== null && digit <= LabelingLimits.labelShortcutCount) {
      const label = items[digit - 1];
      if (label) classify(label.id);
      else notice('selectLabelFirst');
      return true;
    }
    const direction = directionOf(event);
    if (direction === null) return false;
    stepTo(direction);
    return true;
  });

  return (
    <div className="loupe-mark" data-testid="mark-page" data-kind="classification">
      <Space className="loupe-mark-header" wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('title.classification')}
        </Typography.Title>
        <SaveStatusView status={status} onRetry={retry} />
        <HelpButton onClick={guide.show} />
      </Space>
      <Row gutter={12}>
        <Col xs={24} lg={18}>
          <Card size="small" className="loupe-mark-stage-card">
            <NavigationBar nav={nav} onStep={stepTo} />
            <div className="loupe-mark-stage" data-testid="mark-canvas">
              {image ? (
                <img className="loupe-mark-class-image" src={withToken(image.originalUrl)} alt={image.name} draggable={false} data-testid="mark-image" />
              ) : (
                <PageState nav={nav} onRetry={nav.reload} />
              )}
            </div>
          </Card>
        </Col>
        <Col xs={24} lg={6}>
          <Card size="small" title={t('classify.title')} data-testid="mark-labels">
            <ClassPanel
              modelId={modelId}
              labels={items}
              classLabelId={image?.classLabelId ?? null}
              disabled={!image}
              onAssign={classify}
            />
          </Card>
        </Col>
      </Row>
      <MarkGuide kind="classification" open={guide.open} onClose={guide.close} />
    </div>
  );
}
