import type { Editor } from '@loupe/annotator';
import { isTypingTarget, keyInput, pointerInput, wheelPixels } from './domInput';

export interface InputOptions {
  /** Listen to the keyboard (while the canvas is focused or under the pointer). */
  readonly keyboard: boolean;
}

/**
 * Forwards the canvas's pointer, wheel and double-click events, and the window's keys while the canvas is
 * focused or hovered, to the editor. Returns the function that detaches everything.
 */
export function attachInput(root: HTMLElement, editor: Editor, options: InputOptions): () => void {
  let hovered = false;
  const local = (e: MouseEvent) => pointerInput(e, root.getBoundingClientRect());

  const onDown = (e: PointerEvent) => {
    // Keep receiving moves and the release when a drag leaves the canvas.
    root.setPointerCapture(e.pointerId);
    // A middle press would start the browser's autoscroll; the focus lets shortcuts follow the canvas.
    if (e.button === 1) e.preventDefault();
    root.focus({ preventScroll: true });
    editor.pointerDown(local(e));
  };
  const onMove = (e: PointerEvent) => editor.pointerMove(local(e));
  const onUp = (e: PointerEvent) => {
    if (root.hasPointerCapture(e.pointerId)) root.releasePointerCapture(e.pointerId);
    editor.pointerUp(local(e));
  };
  const onDoubleClick = (e: MouseEvent) => editor.doubleClick(local(e));
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const input = local(e);
    editor.wheel(input.point, wheelPixels(e, root.clientHeight), { ctrl: e.ctrlKey || e.metaKey });
  };
  const onContextMenu = (e: Event) => e.preventDefault();
  const onEnter = () => (hovered = true);
  const onLeave = () => (hovered = false);

  const onKeyDown = (e: KeyboardEvent) => {
    if (!options.keyboard || e.defaultPrevented || isTypingTarget(e.target)) return;
    if (!hovered && !root.contains(document.activeElement)) return;
    if (editor.keyDown(keyInput(e))) e.preventDefault();
  };
  // Releases always reach the editor: a Space let go elsewhere must still end the pan it started.
  const onKeyUp = (e: KeyboardEvent) => editor.keyUp(keyInput(e));
  // A window that loses focus never hears the release.
  const onBlur = () => editor.keyUp({ key: ' ', code: 'Space' });

  const listeners: [EventTarget, string, EventListener, AddEventListenerOptions?][] = [
    [root, 'pointerdown', onDown as EventListener],
    [root, 'pointermove', onMove as EventListener],
    [root, 'pointerup', onUp as EventListener],
    [root, 'pointercancel', onUp as EventListener],
    [root, 'dblclick', onDoubleClick as EventListener],
    [root, 'wheel', onWheel as EventListener, { passive: false }],
    [root, 'contextmenu', onContextMenu],
    [root, 'pointerenter', onEnter],
    [root, 'pointerleave', onLeave],
    [window, 'keydown', onKeyDown as EventListener],
    [window, 'keyup', onKeyUp as EventListener],
    [window, 'blur', onBlur],
  ];
  for (const [target, type, fn, opts] of listeners) target.addEventListener(type, fn, opts);
  return () => {
    for (const [target, type, fn, opts] of listeners) target.removeEventListener(type, fn, opts);
  };
}
