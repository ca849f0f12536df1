import { memo, type ReactNode } from 'react';
import { Button, Divider, Space, Tooltip } from 'antd';
import {
  BorderOutlined,
  DragOutlined,
  EyeInvisibleOutlined,
  EyeOutlined,
  GatewayOutlined,
  RedoOutlined,
  RotateRightOutlined,
  SelectOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { TOOLS_BY_MODE, type Editor, type ToolId } from '@loupe/annotator';
import { useTranslation } from '@/i18n';
import { useActionHint } from './actionHints';
import type { PanelState } from './useEditorView';

const TOOL_ICONS: Record<ToolId, ReactNode> = {
  select: <SelectOutlined />,
  box: <BorderOutlined />,
  rbox: <RotateRightOutlined />,
  polygon: <GatewayOutlined />,
  pan: <DragOutlined />,
};

/** The mode's tools, undo/redo and hide/show; view controls and settings come in as children. */
export function Toolbar({ editor, state, children }: { editor: Editor; state: PanelState; children?: ReactNode }) {
  const { mode, tool, canUndo, canRedo, shapesHidden } = state;
  return (
    <div className="loupe-mark-toolbar" data-testid="mark-toolbar">
      <ToolButtons editor={editor} mode={mode} tool={tool} canUndo={canUndo} canRedo={canRedo} shapesHidden={shapesHidden} />
      <Divider orientation="vertical" />
      {children}
    </div>
  );
}

type ToolButtonsProps = { editor: Editor } & Pick<PanelState, 'mode' | 'tool' | 'canUndo' | 'canRedo' | 'shapesHidden'>;

/** Memoized on what it shows: the page renders on every image switch and save, these buttons seldom change. */
const ToolButtons = memo(function ToolButtons({ editor, mode, tool: current, canUndo, canRedo, shapesHidden }: ToolButtonsProps) {
  const { t } = useTranslation('mark');
  const hint = useActionHint();
  return (
    <>
      <Space.Compact data-testid="mark-tools">
        {TOOLS_BY_MODE[mode].map((tool) => (
          <Tooltip key={tool} title={hint(`tool.${tool}`)}>
            <Button
              icon={TOOL_ICONS[tool]}
              type={current === tool ? 'primary' : 'default'}
              aria-pressed={current === tool}
              aria-label={t(`tools.${tool}`)}
              onClick={() => editor.setTool(tool)}
              data-testid={`mark-tool-${tool}`}
            />
          </Tooltip>
        ))}
      </Space.Compact>
      <Space.Compact data-testid="mark-history">
        <Tooltip title={hint('undo')}>
          <Button icon={<UndoOutlined />} disabled={!canUndo} onClick={() => editor.undo()} aria-label={t('actions.undo')} data-testid="mark-undo" />
        </Tooltip>
        <Tooltip title={hint('redo')}>
          <Button icon={<RedoOutlined />} disabled={!canRedo} onClick={() => editor.redo()} aria-label={t('actions.redo')} data-testid="mark-redo" />
        </Tooltip>
      </Space.Compact>
      <Tooltip title={hint('toggleShapesHidden')}>
        <Button
          icon={shapesHidden ? <EyeInvisibleOutlined /> : <EyeOutlined />}
          aria-pressed={shapesHidden}
          onClick={() => editor.toggleShapesHidden()}
          data-testid="mark-hide-shapes"
        >
          {t(shapesHidden ? 'toolbar.showShapes' : 'toolbar.hideShapes')}
        </Button>
      </Tooltip>
    </>
  );
});
