import type { Action, EditorLike } from '../types.js';
import { isLetter, noMods } from './keys.js';

/** The page knows the image list (and says firstImage / lastImage); the core only refuses to lose a drawing. */
function navigate(editor: EditorLike, direction: -1 | 1): boolean {
  if (editor.hasUnfinishedDrawing()) {
    editor.host.notice?.('drawingNotFinished');
    return true;
  }
  editor.host.navigate?.(direction);
  return true;
}

export const previousImage: Action = {
  name: 'previousImage',
  labelKey: 'actions.previousImage',
  shortcut: 'A',
  keyTest: (k) => noMods(k) && !k.shift && (isLetter(k, 'a') || k.key === 'PageUp'),
  perform: (editor) => navigate(editor, -1),
};

export const nextImage: Action = {
  name: 'nextImage',
  labelKey: 'actions.nextImage',
  shortcut: 'D',
  keyTest: (k) => noMods(k) && !k.shift && (isLetter(k, 'd') || k.key === 'PageDown'),
  perform: (editor) => navigate(editor, 1),
};
