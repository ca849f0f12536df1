import { useCallback, useEffect, useRef, useState } from 'react';
import { Editor, type EditorHost, type EditorMode, type LabelInfo } from '@loupe/annotator';
import { LabelingLimits, type LabelData } from '@loupe/contracts';

/**
 * The page's one editor. It outlives image switches (editor.load keeps each image's undo history for the
 * session); the host callbacks go through a ref so that they always see the page's latest state.
 */
export function useMarkEditor(mode: EditorMode, host: Required<EditorHost>): Editor {
  const hostRef = useRef(host);
  hostRef.current = host;
  const [editor] = useState(
    () =>
      new Editor({
        // A placeholder until the first image's annotations arrive and editor.load sizes it.
        image: { width: 1, height: 1 },
        mode,
        labels: [],
        shapes: [],
        minArea: LabelingLimits.minAreaDefault,
        host: {
          notice: (notice, values) => hostRef.current.notice(notice, values),
          navigate: (direction) => hostRef.current.navigate(direction),
        },
      }),
  );
  return editor;
}

/**
 * Keep the editor's labels in step with the model's, the first one active when none is. A label created on this page joins the editor at once
 * and becomes the active one: waiting for the label list to refetch would let a key pressed meanwhile (1–9)
 * be overridden when the list arrives.
 */
export function useEditorLabels(editor: Editor, labels: readonly LabelData[] | undefined) {
  useEffect(() => {
    if (!labels) return;
    const infos: LabelInfo[] = labels.map(({ id, name, color }) => ({ id, name, color }));
    editor.setLabels(infos);
    // With no label chosen the first box drawn is refused ("select or create a label"): the first label is
    // chosen when there is one, also after the chosen label was deleted.
    if (editor.state.activeLabelId === null && infos.length > 0) editor.setActiveLabel(infos[0]!.id);
  }, [editor, labels]);
  return useCallback(
    ({ id, name, color }: LabelData) => {
      if (!editor.state.labels.some((l) => l.id === id)) editor.setLabels([...editor.state.labels, { id, name, color }]);
      editor.setActiveLabel(id);
    },
    [editor],
  );
}
