import { screenPoint, type KeyInput, type PointerInput } from '@loupe/annotator';

/** DOM events → the editor's inputs. Pure, so the mapping is testable without a canvas. */
export function pointerInput(e: MouseEvent, origin: { readonly left: number; readonly top: number }): PointerInput {
  return {
    point: screenPoint(e.clientX - origin.left, e.clientY - origin.top),
    button: e.button,
    shift: e.shiftKey,
    ctrl: e.ctrlKey,
    meta: e.metaKey,
    alt: e.altKey,
  };
}

export function keyInput(e: KeyboardEvent): KeyInput {
  return { key: e.key, code: e.code, shift: e.shiftKey, ctrl: e.ctrlKey, meta: e.metaKey, alt: e.altKey };
}

/** Keys typed into a field (label name, OCR text, minimum area) are text, not shortcuts. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

const LINE_PX = 16;

/** Wheel deltas in pixels: Firefox reports lines, some devices pages. */
export function wheelPixels(e: Pick<WheelEvent, 'deltaY' | 'deltaMode'>, pagePx: number): number {
  if (e.deltaMode === 1) return e.deltaY * LINE_PX;
  if (e.deltaMode === 2) return e.deltaY * pagePx;
  return e.deltaY;
}
