import { useCallback, useRef, useSyncExternalStore } from 'react';
import type { Editor, EditorState } from '@loupe/annotator';

/**
 * What the page's panels show. Pan offsets, hover, the draft and the tool's inner state are left out: they change
 * on every pointer move, and re-rendering the toolbar, label list and properties (antd, i18n) for each cost
 * ~25 ms a frame in software raster, half the frame budget. The canvas draws those from the editor directly.
 */
export type PanelState = Pick<
  EditorState,
  'image' | 'mode' | 'labels' | 'shapes' | 'selectedIds' | 'activeLabelId' | 'tool' | 'hiddenLabelIds' | 'shapesHidden' | 'canUndo' | 'canRedo' | 'minArea'
>;

const PANEL_KEYS = ['image', 'mode', 'labels', 'shapes', 'selectedIds', 'activeLabelId', 'tool', 'hiddenLabelIds', 'shapesHidden', 'canUndo', 'canRedo', 'minArea'] as const;

const pickPanel = (s: EditorState): PanelState => {
  const out: Record<string, unknown> = {};
  for (const key of PANEL_KEYS) out[key] = s[key];
  return out as unknown as PanelState;
};

const samePanel = (a: PanelState, b: PanelState) => PANEL_KEYS.every((key) => a[key] === b[key]);

/**
 * A value derived from the editor's state that re-renders its component only when it changes (by `equal`). The
 * editor's state objects are immutable and replaced field by field, so identity comparisons suffice.
 */
export function useEditorSelector<T>(editor: Editor, select: (state: EditorState) => T, equal: (a: T, b: T) => boolean = Object.is): T {
  const cache = useRef<{ state: EditorState; value: T } | null>(null);
  const selectRef = useRef({ select, equal });
  selectRef.current = { select, equal };
  const subscribe = useCallback((onChange: () => void) => editor.subscribe(() => onChange()), [editor]);
  const snapshot = () => {
    const state = editor.state;
    const c = cache.current;
    if (c && c.state === state) return c.value;
    const next = selectRef.current.select(state);
    // Same value as before: hand back the old object so React bails out without rendering.
    const value = c && selectRef.current.equal(c.value, next) ? c.value : next;
    cache.current = { state, value };
    return value;
  };
  return useSyncExternalStore(subscribe, snapshot);
}

export const usePanelState = (editor: Editor): PanelState => useEditorSelector(editor, pickPanel, samePanel);

/** The zoom in whole percent: the only part of the view the toolbar shows. */
export const useZoomPercent = (editor: Editor): number => useEditorSelector(editor, (s) => Math.round(s.viewport.scale * 100));
