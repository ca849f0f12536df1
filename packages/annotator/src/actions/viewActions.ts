import type { Action } from '../types.js';
import { isLetter, noMods, withMod } from './keys.js';

/** One + or - press; four presses double or halve. */
export const ZOOM_STEP = 2 ** 0.25;

export const fit: Action = {
  name: 'fit',
  labelKey: 'actions.fit',
  shortcut: 'F',
  keyTest: (k) => noMods(k) && !k.shift && (isLetter(k, 'f') || k.key === '0'),
  perform: (editor) => {
    editor.fit();
    return true;
  },
};

export const zoomIn: Action = {
  name: 'zoomIn',
  labelKey: 'actions.zoomIn',
  shortcut: '+',
  keyTest: (k) => noMods(k) && (k.key === '+' || k.key === '='),
  perform: (editor) => {
    editor.zoomBy(ZOOM_STEP);
    return true;
  },
};

export const zoomOut: Action = {
  name: 'zoomOut',
  labelKey: 'actions.zoomOut',
  shortcut: '-',
  keyTest: (k) => noMods(k) && (k.key === '-' || k.key === '_'),
  perform: (editor) => {
    editor.zoomBy(1 / ZOOM_STEP);
    return true;
  },
};

export const toggleShapesHidden: Action = {
  name: 'toggleShapesHidden',
  labelKey: 'actions.toggleShapesHidden',
  shortcut: 'Ctrl+H',
  keyTest: (k) => withMod(k) && !k.shift && !k.alt && isLetter(k, 'h'),
  perform: (editor) => {
    editor.toggleShapesHidden();
    return true;
  },
};
