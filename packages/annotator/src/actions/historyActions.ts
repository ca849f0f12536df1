import type { Action } from '../types.js';
import { isLetter, withMod } from './keys.js';

export const undo: Action = {
  name: 'undo',
  labelKey: 'actions.undo',
  shortcut: 'Ctrl+Z',
  keyTest: (k) => withMod(k) && !k.shift && !k.alt && isLetter(k, 'z'),
  perform: (editor) => editor.undo(),
};

export const redo: Action = {
  name: 'redo',
  labelKey: 'actions.redo',
  shortcut: 'Ctrl+Shift+Z',
  keyTest: (k) => withMod(k) && !k.alt && ((k.shift && isLetter(k, 'z')) || (!k.shift && isLetter(k, 'y'))),
  perform: (editor) => editor.redo(),
};
