import { memo, useEffect, useRef, useState } from 'react';
import { Empty, Input, Typography } from 'antd';
import { measure, type Editor, type Shape } from '@loupe/annotator';
import { LabelingLimits } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import type { PanelState } from './useEditorView';

const num = (v: number) => (Math.round(v * 10) / 10).toString();
const pair = (x: number, y: number) => `(${num(x)}, ${num(y)})`;
const deg = (v: number) => `${num(v)}°`;

/** SPEC §3 annotation box fields of the one selected shape, in image pixels and degrees. */
function Measurements({ shape }: { shape: Shape }) {
  const { t } = useTranslation('mark');
  const m = measure(shape.geometry);
  const rows: [string, string][] = [
    ['topLeft', pair(m.x1, m.y1)],
    ['bottomRight', pair(m.x2, m.y2)],
    ['angle', deg(m.angle)],
    ['area', `${num(m.area)} px²`],
    ['majorAxis', `${num(m.majorAxis)} px`],
    ['minorAxis', `${num(m.minorAxis)} px`],
    ['majorAxisAngle', deg(m.majorAxisAngle)],
    ['centroid', pair(m.cx, m.cy)],
  ];
  return (
    <dl className="loupe-mark-props-list">
      {rows.map(([key, value]) => (
        <div key={key} data-testid={`mark-prop-${key}`}>
          <dt>{t(`props.${key}`)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * OCR text of a box. Written into the editor (one undo step, one save) when the field is left or Enter is
 * pressed; keyed by shape so that another selection starts from its own text.
 */
function TextField({ editor, shape }: { editor: Editor; shape: Shape }) {
  const { t } = useTranslation('mark');
  const stored = shape.geometry.text ?? '';
  const [draft, setDraft] = useState(stored);
  const commit = () => {
    if (draft === stored) return;
    latest.current.stored = draft;
    editor.setText(shape.id, draft);
  };
  // A click on another shape selects it before the field loses focus, and the field is gone by then: what was
  // typed is written when the field goes away, too.
  const latest = useRef({ draft, stored, id: shape.id });
  latest.current = { draft, stored, id: shape.id };
  useEffect(
    () => () => {
      const { draft: typed, stored: before, id } = latest.current;
      if (typed !== before) editor.setText(id, typed);
    },
    [editor],
  );
  return (
    <label className="loupe-mark-text">
      <Typography.Text type="secondary">{t('props.text')}</Typography.Text>
      <Input
        value={draft}
        maxLength={LabelingLimits.ocrTextMax}
        placeholder={t('props.textPlaceholder')}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onPressEnter={commit}
        data-testid="mark-text-input"
      />
    </label>
  );
}

type PanelProps = { editor: Editor } & Pick<PanelState, 'shapes' | 'selectedIds' | 'labels' | 'mode'>;

/** Memoized on what it shows: the page renders on every image switch and save. */
export const PropertiesPanel = memo(function PropertiesPanel({ editor, shapes, selectedIds, labels, mode }: PanelProps) {
  const { t } = useTranslation('mark');
  const selected = selectedIds.size === 0 ? [] : shapes.filter((s) => selectedIds.has(s.id));
  const shape = selected.length === 1 ? selected[0]! : null;
  const label = shape ? labels.find((l) => l.id === shape.labelId) : undefined;
  return (
    <div className="loupe-mark-props" data-testid="mark-props" data-count={selected.length}>
      {selected.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('props.none')} />}
      {selected.length > 1 && <Typography.Text>{t('props.many', { count: selected.length })}</Typography.Text>}
      {shape && (
        <>
          <Typography.Text strong data-testid="mark-prop-label">
            <span className="loupe-mark-swatch" style={{ background: label?.color, display: 'inline-block', marginInlineEnd: 6 }} />
            {label?.name ?? shape.labelId}
          </Typography.Text>
          {mode === 'ocr' && <TextField key={`${shape.id}:${shape.geometry.text ?? ''}`} editor={editor} shape={shape} />}
          <Measurements shape={shape} />
        </>
      )}
    </div>
  );
});
