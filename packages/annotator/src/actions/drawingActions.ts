import type { Action } from '../types.js';
import { noMods } from './keys.js';

export const finishDrawing: Action = {
  name: 'finishDrawing',
  labelKey: 'actions.finishDrawing',
  shortcut: 'Enter',
  keyTest: (k) => noMods(k) && k.key === 'Enter',
  perform: (editor) => editor.finishDrawing(),
};

/** Listed before deleteSelection: while drawing, Backspace means "take back the last point". */
export const removeLastPoint: Action = {
  name: 'removeLastPoint',
  labelKey: 'actions.removeLastPoint',
  shortcut: 'Backspace',
  keyTest: (k, s) => noMods(k) && k.key === 'Backspace' && s.draft !== null && s.draft.kind !== 'marquee',
  perform: (editor) => editor.removeLastPoint(),
};
