import { useEffect, useRef } from 'react';

/** Typing in a field (label name, OCR text, minimum area) must never trigger a labeling shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Window-wide keys of a labeling page. `handle` answers whether it used the key, which then does not scroll
 * the page or reach the browser. Keys with Ctrl, Meta or Alt are left to the browser and the editor.
 */
export function useShortcutKeys(handle: (event: KeyboardEvent) => boolean) {
  const latest = useRef(handle);
  latest.current = handle;
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (latest.current(event)) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}

/** Label shortcut n (1–9) of a key, or 0, or null. */
export function digitOf(event: KeyboardEvent): number | null {
  return /^[0-9]$/.test(event.key) ? Number(event.key) : null;
}

/** Previous/next image keys, as in the editor's actions (A/D, PageUp/PageDown) plus the arrow keys. */
export function directionOf(event: KeyboardEvent): -1 | 1 | null {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === 'a' || key === 'PageUp' || key === 'ArrowLeft') return -1;
  if (key === 'd' || key === 'PageDown' || key === 'ArrowRight') return 1;
  return null;
}
