import type { ReactNode } from 'react';
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
  const { t } = useTranslation('mark');
  const hint = useActionHint();
  return (
    <div className="loupe-mark-toolbar" data-testid="mark-toolbar">
      <Space.Compact data-testid="mark-tools">
        {TOOLS_BY_MODE[state.mode].map((tool) => (
          <Tooltip key={tool} title={hint(`tool.${tool}`)}>
            <Button
              icon={TOOL_ICONS[tool]}
              type={state.tool === tool ? 'primary' : 'default'}
              aria-pressed={state.tool === tool}
              aria-label={t(`tools.${tool}`)}
              onClick={() => editor.setTool(tool)}
              data-testid={`mark-tool-${tool}`}
            />
          </Tooltip>
        ))}
      </Space.Compact>
      <Space.Compact data-testid="mark-history">
        <Tooltip title={hint('undo')}>
          <Button icon={<UndoOutlined />} disabled={!state.canUndo} onClick={() => editor.undo()} aria-label={t('actions.undo')} data-testid="mark-undo" />
        </Tooltip>
        <Tooltip title={hint('redo')}>
          <Button icon={<RedoOutlined />} disabled={!state.canRedo} onClick={() => editor.redo()} aria-label={t('actions.redo')} data-testid="mark-redo" />
        </Tooltip>
      </Space.Compact>
      <Tooltip title={hint('toggleShapesHidden')}>
        <Button
          icon={state.shapesHidden ? <EyeInvisibleOutlined /> : <EyeOutlined />}
          aria-pressed={state.shapesHidden}
          onClick={() => editor.toggleShapesHidden()}
          data-testid="mark-hide-shapes"
        >
          {t(state.shapesHidden ? 'toolbar.showShapes' : 'toolbar.hideShapes')}
        </Button>
      </Tooltip>
      <Divider orientation="vertical" />
      {children}
    </div>
  );
}
