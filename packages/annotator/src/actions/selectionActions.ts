import type { Action } from '../types.js';
import { isLetter, noMods, withMod } from './keys.js';

export const deleteSelection: Action = {
  name: 'deleteSelection',
  labelKey: 'actions.deleteSelection',
  shortcut: 'Delete',
  // Never while drawing: Backspace there takes back a point, and a half-drawn shape should not cost the selection.
  keyTest: (k, s) => noMods(k) && (k.key === 'Delete' || k.key === 'Backspace') && s.draft === null,
  perform: (editor) => editor.deleteSelected(),
};

export const copy: Action = {
  name: 'copy',
  labelKey: 'actions.copy',
  shortcut: 'Ctrl+C',
  keyTest: (k) => withMod(k) && !k.shift && !k.alt && isLetter(k, 'c'),
  perform: (editor) => editor.copy(),
};

export const paste: Action = {
  name: 'paste',
  labelKey: 'actions.paste',
  shortcut: 'Ctrl+V',
  keyTest: (k) => withMod(k) && !k.shift && !k.alt && isLetter(k, 'v'),
  // The key is consumed even with an empty clipboard: the editor has answered it with a notice.
  perform: (editor) => {
    editor.paste();
    return true;
  },
};

export const selectAll: Action = {
  name: 'selectAll',
  labelKey: 'actions.selectAll',
  shortcut: 'Ctrl+A',
  keyTest: (k) => withMod(k) && !k.shift && !k.alt && isLetter(k, 'a'),
  perform: (editor) => {
    editor.selectAll();
    return true;
  },
};

/** Escape peels one layer at a time: first the drawing or drag, then the selection. */
export const cancel: Action = {
  name: 'cancel',
  labelKey: 'actions.cancel',
  shortcut: 'Escape',
  keyTest: (k) => k.key === 'Escape',
  perform: (editor) => {
    if (editor.cancelDrawing()) return true;
    if (editor.state.selectedIds.size === 0) return false;
    editor.clearSelection();
    return true;
  },
};
