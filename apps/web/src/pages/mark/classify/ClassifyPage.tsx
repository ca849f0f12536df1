import { useCallback } from 'react';
import { Card, Col, Row, Space, Typography } from 'antd';
import { LabelingLimits } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useLabels } from '@/pages/gallery/galleryApi';
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
import { ClassModeSwitch } from './ClassModeSwitch';
import { ClassSetPanel } from './ClassSetPanel';
import { useMultiLabel } from './classModeApi';
import { classSetKey, classSetOf, EMPTY_SET, sameSet, toggleClass, toggleNone, type ClassSet } from './classSet';
import { useClassAssign } from './useClassAssign';
import { useClassSetAssign } from './useClassSetAssign';

/**
 * /mark for classification models: one class per image. Clicking a label or pressing 1–9 sets the class and opens
 * the next image; 0 or Clear removes it. With "several classes per image" (the model's multiLabel, switched
 * here) a click or 1–9 toggles a class, N confirms "none of these", 0 clears, and Enter or → opens the next image.
 */
export function ClassifyPage({ modelId }: { modelId: string }) {
  const { t } = useTranslation('mark');
  const showError = useShowError();
  const notice = useNotice();
  const guide = useGuide('classification');
  const labels = useLabels(modelId);
  const nav = useImageNavigator(modelId, useStartImageId(), showError);
  useSyncImageId(nav.image?.id);
  const single = useClassAssign(modelId, nav.replaceImage);
  const multi = useClassSetAssign(modelId, nav.replaceImage);
  const { multiLabel, loaded, settled } = useMultiLabel(modelId);
  const { assign, retry, status } = multiLabel ? { ...single, retry: multi.retry, status: multi.status } : single;
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

  const assignSet = multi.assign;
  const set = image && multiLabel ? classSetOf(image) : EMPTY_SET;
  const change = useCallback(
    (next: ClassSet) => {
      if (!image || moving || sameSet(classSetOf(image), next)) return;
      assignSet({ image, index }, next);
    },
    [assignSet, image, index, moving],
  );

  useShortcutKeys((event) => {
    // Until the mode is known a key could set one class on a multi-label model (or the reverse).
    if (guide.open || !settled) return false;
    if (multiLabel) {
      const action = classSetKey(event.key, LabelingLimits.labelShortcutCount);
      if (action?.kind === 'toggle') {
        const label = items[action.shortcut - 1];
        if (label) change(toggleClass(set, label.id));
        else notice('selectLabelFirst');
      } else if (action?.kind === 'clear') change(EMPTY_SET);
      else if (action?.kind === 'none') change(toggleNone(set));
      else if (action?.kind === 'next') stepTo(1);
      if (action) return true;
    }
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
    <div className="loupe-mark" data-testid="mark-page" data-kind="classification" data-multi-label={multiLabel} data-ready={Boolean(image) && !moving && settled}>
      <Space className="loupe-mark-header" wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('title.classification')}
        </Typography.Title>
        <SaveStatusView status={status} onRetry={retry} />
        <ClassModeSwitch modelId={modelId} multiLabel={multiLabel} disabled={!loaded || status === 'saving'} onSwitched={nav.reload} />
        <HelpButton onClick={guide.show} />
      </Space>
      <Row gutter={12}>
        <Col xs={24} lg={18}>
          <Card size="small" className="loupe-mark-stage-card">
            <NavigationBar nav={nav} onStep={stepTo} />
            <div className="loupe-mark-stage" data-testid="mark-canvas">
              {image ? (
                <img className="loupe-mark-class-image" src={image.originalUrl} alt={image.name} draggable={false} data-testid="mark-image" />
              ) : (
                <PageState nav={nav} onRetry={nav.reload} />
              )}
            </div>
          </Card>
        </Col>
        <Col xs={24} lg={6}>
          <Card size="small" title={t('classify.title')} data-testid="mark-labels">
            {multiLabel ? (
              <ClassSetPanel
                modelId={modelId}
                labels={items}
                set={set}
                disabled={!image || !settled}
                onToggle={(labelId) => change(toggleClass(set, labelId))}
                onNone={() => change(toggleNone(set))}
                onClear={() => change(EMPTY_SET)}
                onNext={() => stepTo(1)}
              />
            ) : (
              <ClassPanel modelId={modelId} labels={items} classLabelId={image?.classLabelId ?? null} disabled={!image || !settled} onAssign={classify} />
            )}
          </Card>
        </Col>
      </Row>
      <MarkGuide kind="classification" open={guide.open} onClose={guide.close} />
    </div>
  );
}
