import { memo } from 'react';
import { Button, Slider, Space, Tooltip, Typography } from 'antd';
import { ExpandOutlined, ZoomInOutlined, ZoomOutOutlined } from '@ant-design/icons';
import { ZOOM_STEP, type Editor } from '@loupe/annotator';
import { useTranslation } from '@/i18n';
import { useActionHint } from './actionHints';
import { useZoomPercent } from './useEditorView';

/** Image adjustments are the view's only: they never change the image or its annotations. */
export interface ImageAdjust {
  brightness: number;
  contrast: number;
}
export const NEUTRAL_ADJUST: ImageAdjust = { brightness: 100, contrast: 100 };

interface Props {
  editor: Editor;
  adjust: ImageAdjust;
  onAdjust: (adjust: ImageAdjust) => void;
}

function PercentSlider({ testId, label, value, onChange }: { testId: string; label: string; value: number; onChange: (v: number) => void }) {
  return (
    <Tooltip title={`${label}: ${value} %`}>
      <span className="loupe-mark-slider-box" data-testid={testId} data-value={value}>
        <Typography.Text type="secondary">{label}</Typography.Text>
        <Slider
          className="loupe-mark-slider"
          min={20}
          max={300}
          step={5}
          value={value}
          onChange={onChange}
          ariaLabelForHandle={label}
          tooltip={{ formatter: (v) => `${v} %` }}
        />
      </span>
    </Tooltip>
  );
}

/** Zoom out / percentage / in, fit, brightness and contrast. */
/** Its own component: the percentage changes on every wheel step and re-renders only this button. */
function ZoomPercent({ editor }: { editor: Editor }) {
  const { t } = useTranslation('mark');
  const percent = useZoomPercent(editor);
  return (
    <Tooltip title={t('toolbar.zoom')}>
      <Button className="loupe-mark-zoom" onClick={() => editor.zoomBy(1 / editor.state.viewport.scale)} data-testid="mark-zoom" data-value={percent}>
        {percent} %
      </Button>
    </Tooltip>
  );
}

export const ViewControls = memo(function ViewControls({ editor, adjust, onAdjust }: Props) {
  const { t } = useTranslation('mark');
  const hint = useActionHint();
  return (
    <Space wrap size={8}>
      <Space.Compact>
        <Tooltip title={hint('zoomOut')}>
          <Button icon={<ZoomOutOutlined />} onClick={() => editor.zoomBy(1 / ZOOM_STEP)} aria-label={t('actions.zoomOut')} data-testid="mark-zoom-out" />
        </Tooltip>
        <ZoomPercent editor={editor} />
        <Tooltip title={hint('zoomIn')}>
          <Button icon={<ZoomInOutlined />} onClick={() => editor.zoomBy(ZOOM_STEP)} aria-label={t('actions.zoomIn')} data-testid="mark-zoom-in" />
        </Tooltip>
        <Tooltip title={hint('fit')}>
          <Button icon={<ExpandOutlined />} onClick={() => editor.fit()} aria-label={t('actions.fit')} data-testid="mark-fit" />
        </Tooltip>
      </Space.Compact>
      <PercentSlider
        testId="mark-brightness"
        label={t('toolbar.brightness')}
        value={adjust.brightness}
        onChange={(brightness) => onAdjust({ ...adjust, brightness })}
      />
      <PercentSlider testId="mark-contrast" label={t('toolbar.contrast')} value={adjust.contrast} onChange={(contrast) => onAdjust({ ...adjust, contrast })} />
    </Space>
  );
});
