import { useEffect, useRef } from 'react';
import type { Editor, KeyInput } from '@loupe/annotator';
import { isTyping } from '../shared/useShortcutKeys';

const keyInput = (e: KeyboardEvent): KeyInput => ({ key: e.key, code: e.code, shift: e.shiftKey, ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey });

/**
 * The editor's shortcuts work wherever the focus is on the page (after clicking a toolbar button or adding a
 * label, too), except while typing in a field: the OCR text, a label name, the minimum area.
 */
export function useEditorKeys(editor: Editor, enabled: boolean) {
  const on = useRef(enabled);
  on.current = enabled;
  useEffect(() => {
    const down = (e: KeyboardEvent) => {
      if (!on.current || e.defaultPrevented || isTyping(e.target)) return;
      if (editor.keyDown(keyInput(e))) e.preventDefault();
    };
    // Key-ups always reach the editor: a Space released in a field must still end the pan it started.
    const up = (e: KeyboardEvent) => editor.keyUp(keyInput(e));
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
    };
  }, [editor]);
}
