import { memo, useMemo } from 'react';
import { Button, Empty, Tooltip, Typography } from 'antd';
import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import type { Editor } from '@loupe/annotator';
import { LabelingLimits, type LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { NewLabelForm } from '../shared/NewLabelForm';
import type { PanelState } from './useEditorView';

interface Props {
  modelId: string;
  editor: Editor;
  shapes: PanelState['shapes'];
  activeLabelId: PanelState['activeLabelId'];
  hiddenLabelIds: PanelState['hiddenLabelIds'];
  labels: readonly LabelData[];
  onCreated: (label: LabelData) => void;
}

/**
 * The model's labels: click (or keys 1–9) to draw with one, the eye to hide its shapes, counts on this image.
 * Memoized on what it shows, so a selection, a tool change or a save does not render it.
 */
export const LabelPanel = memo(function LabelPanel({ modelId, editor, shapes, activeLabelId, hiddenLabelIds, labels, onCreated }: Props) {
  const { t } = useTranslation('mark');
  const counts = useMemo(() => {
    const map = new Map<number, number>();
    for (const s of shapes) map.set(s.labelId, (map.get(s.labelId) ?? 0) + 1);
    return map;
  }, [shapes]);

  return (
    <div data-testid="mark-labels">
      {labels.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('labels.empty')} />}
      <div className="loupe-mark-label-list" role="listbox" aria-label={t('labels.title')}>
        {labels.map((label, i) => {
          const key = i < LabelingLimits.labelShortcutCount ? String(i + 1) : null;
          const active = activeLabelId === label.id;
          const hidden = hiddenLabelIds.has(label.id);
          return (
            <div
              key={label.id}
              role="option"
              aria-selected={active}
              tabIndex={0}
              className="loupe-mark-label"
              title={key ? t('labels.activateKey', { name: label.name, key }) : t('labels.activate', { name: label.name })}
              onClick={() => editor.setActiveLabel(label.id)}
              onKeyDown={(e) => e.key === 'Enter' && editor.setActiveLabel(label.id)}
              data-testid={`mark-label-${label.id}`}
              data-active={active}
              data-hidden={hidden}
            >
              <span className="loupe-mark-swatch" style={{ background: label.color }} />
              <span className="loupe-mark-label-name">{label.name}</span>
              {key && <kbd className="loupe-mark-key">{key}</kbd>}
              <Tooltip title={t('labels.onImage')}>
                <Typography.Text type="secondary" data-testid={`mark-label-count-${label.id}`}>
                  {counts.get(label.id) ?? 0}
                </Typography.Text>
              </Tooltip>
              <Button
                size="small"
                type="text"
                icon={hidden ? <EyeInvisibleOutlined /> : <EyeOutlined />}
                aria-pressed={hidden}
                aria-label={t(hidden ? 'labels.show' : 'labels.hide', { name: label.name })}
                onClick={(e) => {
                  // The row's click would also make the label active.
                  e.stopPropagation();
                  editor.toggleLabelHidden(label.id);
                }}
                data-testid={`mark-label-hide-${label.id}`}
              />
            </div>
          );
        })}
      </div>
      <NewLabelForm modelId={modelId} count={labels.length} onCreated={onCreated} />
    </div>
  );
});
