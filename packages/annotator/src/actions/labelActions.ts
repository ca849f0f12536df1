import { LabelingLimits } from '@loupe/contracts';
import type { Action, EditorLike } from '../types.js';
import { digitOf, noMods } from './keys.js';

/**
 * Makes labels[n-1] the active label and, with the select tool, gives it to the selection (one undo step).
 * With a drawing tool the key only picks the label for the next shape: the shape just drawn stays selected
 * (for its handles and OCR text), and relabeling it would surprise a user who switches labels between shapes.
 */
function applyLabel(editor: EditorLike, n: number): boolean {
  const label = editor.state.labels[n - 1];
  if (!label) return false;
  editor.setActiveLabel(label.id);
  if (editor.state.tool === 'select' && editor.state.selectedIds.size > 0) editor.setLabelOfSelection(label.id);
  return true;
}

export const labelActions: Action[] = Array.from({ length: LabelingLimits.labelShortcutCount }, (_, i) => ({
  name: `label${i + 1}`,
  labelKey: 'actions.selectLabel',
  shortcut: String(i + 1),
  keyTest: (k) => noMods(k) && digitOf(k) === i + 1,
  perform: (editor) => applyLabel(editor, i + 1),
}));
