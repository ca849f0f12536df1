import { useCallback, useEffect, useState } from 'react';
import { Button, Card, Col, Row, Space, Spin, Typography } from 'antd';
import type { EditorMode } from '@loupe/annotator';
import type { LabelData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useLabels } from '@/pages/gallery/galleryApi';
import { AnnotatorCanvas } from '@/pages/mark/canvas';
import { MarkGuide, useGuide } from '../guide/MarkGuide';
import { useConvertTestResults, useLabelingSettings, useSaveLabelingSettings, useTestResults } from '../markApi';
import { NavigationBar } from '../navigation/NavigationBar';
import { useStartImageId, useSyncImageId } from '../navigation/useImageIdParam';
import { useImageNavigator } from '../navigation/useImageNavigator';
import { SaveStatusView } from '../save/SaveStatusView';
import { HelpButton } from '../shared/HelpButton';
import { LeaveGuard } from '../shared/LeaveGuard';
import { PageState } from '../shared/PageState';
import { useLatestCallback } from '../shared/useLatestCallback';
import { useNotice } from '../shared/useNotice';
import { LabelPanel } from './LabelPanel';
import { MinAreaSetting } from './MinAreaSetting';
import { PropertiesPanel } from './PropertiesPanel';
import { TestResultsControls } from './TestResultsControls';
import { Toolbar } from './Toolbar';
import { useEditorKeys } from './useEditorKeys';
import { useImageSession } from './useImageSession';
import { useNeighbourPrefetch, usePrefetchStores } from './useNeighbourPrefetch';
import { usePanelState } from './useEditorView';
import { useEditorLabels, useMarkEditor } from './useMarkEditor';
import { NEUTRAL_ADJUST, ViewControls, type ImageAdjust } from './ViewControls';

const NO_LABELS: readonly LabelData[] = [];

/**
 * /mark/detection, /mark/segmentation, /mark/ocr, /mark/measure: draw shapes on each image of the model. The panels
 * are memoized and get handlers of constant identity (useLatestCallback), so the page's renders during an image
 * switch (3-4) redraw only what changed.
 */
export function AnnotatePage({ modelId, mode }: { modelId: string; mode: EditorMode }) {
  const { t } = useTranslation('mark');
  const showError = useShowError();
  const notice = useNotice();
  const { message, modal } = useNotify();
  const guide = useGuide(mode);
  const labels = useLabels(modelId);
  const nav = useImageNavigator(modelId, useStartImageId(), showError);
  useSyncImageId(nav.image?.id);
  const [adjust, setAdjust] = useState<ImageAdjust>(NEUTRAL_ADJUST);
  const [showTests, setShowTests] = useState(false);

  const editor = useMarkEditor(mode, {
    // The editor's tooSmall names the limit; other notices ignore the extra value.
    notice: (n, values) => notice(n, { minArea: editor.state.minArea, ...values }),
    navigate: (direction) => void stepTo(direction),
  });
  const state = usePanelState(editor);
  const activateLabel = useEditorLabels(editor, labels.data);
  const prefetch = usePrefetchStores();
  const session = useImageSession(editor, modelId, nav.image, showError, prefetch.annotations);
  const warm = useNeighbourPrefetch({
    modelId,
    chosen: nav.image,
    shown: !!nav.image && session.image?.id === nav.image.id && !session.loading,
    index: nav.index,
    imageAt: nav.imageAt,
    ...prefetch,
  });
  // While the next image loads the editor still holds the previous one, hidden under the overlay.
  useEditorKeys(editor, !guide.open && !session.loading);

  const settings = useLabelingSettings(modelId);
  const saveSettings = useSaveLabelingSettings(modelId);
  useEffect(() => {
    if (settings.data) editor.setMinArea(settings.data.minArea);
  }, [editor, settings.data]);

  const tests = useTestResults(modelId, session.image?.id);
  const convert = useConvertTestResults(modelId);

  const confirmUnsaved = useCallback(
    () =>
      new Promise<boolean>((resolve) =>
        modal.confirm({
          title: t('save.unsavedTitle'),
          content: t('save.unsavedBody'),
          okText: t('save.switchAnyway'),
          cancelText: t('save.stay'),
          onOk: () => resolve(true),
          onCancel: () => resolve(false),
        }),
      ),
    [modal, t],
  );

  /** Image switch: the ends first (cheap), then the open drawing, then the pending save of this image. */
  const { peek, go } = nav;
  const stepTo = useCallback(
    async (direction: -1 | 1) => {
      const next = peek(direction);
      if ('notice' in next) return notice(next.notice);
      if (editor.hasUnfinishedDrawing()) return notice('drawingNotFinished');
      if (!(await session.flush()) && !(await confirmUnsaved())) return;
      warm(next.index);
      const end = go(direction);
      if (end) notice(end);
    },
    [confirmUnsaved, editor, go, notice, peek, session, warm],
  );

  const convertTests = useLatestCallback(async () => {
    const imageId = session.image?.id;
    if (imageId === undefined) return;
    if (editor.hasUnfinishedDrawing()) return notice('drawingNotFinished');
    if (!(await session.flush())) return;
    const baseVersion = session.baseVersion();
    if (baseVersion === null) return;
    convert.mutate(
      { imageId, baseVersion },
      {
        onSuccess: (data) => {
          session.applyServerSet(data);
          void message.success(t('test.converted', { count: tests.data?.results.length ?? 0 }));
        },
        onError: showError,
      },
    );
  });
  const onStep = useLatestCallback((direction: -1 | 1) => void stepTo(direction));
  const retrySave = useLatestCallback(() => session.retry());
  const saveMinArea = useLatestCallback((minArea: number) => saveSettings.mutate(minArea, { onError: showError }));

  const shown = session.image;
  return (
    <div className="loupe-mark" data-testid="mark-page" data-kind={mode}>
      <Space className="loupe-mark-header" wrap>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t(`title.${mode}`)}
        </Typography.Title>
        <SaveStatusView status={session.status} onRetry={retrySave} />
        <HelpButton onClick={guide.show} />
      </Space>
      <Toolbar editor={editor} state={state}>
        <ViewControls editor={editor} adjust={adjust} onAdjust={setAdjust} />
        <MinAreaSetting value={state.minArea} saving={saveSettings.isPending} onSave={saveMinArea} />
        <TestResultsControls results={tests.data} shown={showTests} onShow={setShowTests} converting={convert.isPending} onConvert={convertTests} />
      </Toolbar>
      <Row gutter={12}>
        <Col xs={24} lg={18}>
          <Card size="small" className="loupe-mark-stage-card">
            <NavigationBar nav={nav.state} onStep={onStep} />
            <div className="loupe-mark-stage" data-testid="mark-canvas">
              {shown ? (
                <AnnotatorCanvas
                  editor={editor}
                  imageUrl={shown.originalUrl}
                  images={prefetch.images}
                  brightness={adjust.brightness}
                  contrast={adjust.contrast}
                  testResults={tests.data?.results}
                  showTestResults={showTests}
                  className="loupe-mark-canvas"
                  // The page forwards keys itself, from anywhere but text fields (useEditorKeys), not only while
                  // the pointer is over the canvas; two forwarders would run Ctrl+Z twice.
                  keyboard={false}
                />
              ) : (
                nav.status !== 'ready' && <PageState nav={nav} onRetry={nav.reload} />
              )}
              {nav.image && (session.loading || session.loadFailed) && (
                <div className="loupe-mark-overlay" data-testid="mark-image-loading">
                  {session.loadFailed ? (
                    <Button onClick={session.retry} data-testid="mark-reload">
                      {t('save.retry')}
                    </Button>
                  ) : (
                    <Spin />
                  )}
                </div>
              )}
            </div>
          </Card>
        </Col>
        <Col xs={24} lg={6}>
          <Card size="small" title={t('labels.title')} style={{ marginBottom: 12 }}>
            <LabelPanel
              modelId={modelId}
              editor={editor}
              shapes={state.shapes}
              activeLabelId={state.activeLabelId}
              hiddenLabelIds={state.hiddenLabelIds}
              labels={labels.data ?? NO_LABELS}
              onCreated={activateLabel}
            />
          </Card>
          <Card size="small" title={t('props.title')}>
            <PropertiesPanel editor={editor} shapes={state.shapes} selectedIds={state.selectedIds} labels={state.labels} mode={state.mode} />
          </Card>
        </Col>
      </Row>
      <MarkGuide kind={mode} open={guide.open} onClose={guide.close} />
      <LeaveGuard
        when={() => editor.hasUnfinishedDrawing()}
        onBlocked={() => notice('drawingNotFinished')}
        onUnload={() => void session.flush()}
        unloadWhen={() => editor.hasUnfinishedDrawing() || session.dirty()}
      />
    </div>
  );
}
