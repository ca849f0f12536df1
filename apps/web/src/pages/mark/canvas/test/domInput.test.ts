import { describe, expect, it } from 'vitest';
import { isTypingTarget, keyInput, pointerInput, wheelPixels } from '../domInput';

describe('DOM input mapping', () => {
  it('turns client coordinates into canvas coordinates and keeps button and modifiers', () => {
    const e = new MouseEvent('pointerdown', { clientX: 130, clientY: 95, button: 1, shiftKey: true, altKey: true });
    expect(pointerInput(e, { left: 30, top: 15 })).toEqual({ point: { x: 100, y: 80 }, button: 1, shift: true, ctrl: false, meta: false, alt: true });
  });

  it('keeps key and physical code, so shortcuts work on any layout', () => {
    const e = new KeyboardEvent('keydown', { key: 'и', code: 'KeyB', ctrlKey: true });
    expect(keyInput(e)).toEqual({ key: 'и', code: 'KeyB', shift: false, ctrl: true, meta: false, alt: false });
  });

  it('treats inputs, text areas, selects and editable elements as typing', () => {
    const editable = document.createElement('div');
    editable.contentEditable = 'true';
    // jsdom does not derive isContentEditable from the attribute.
    Object.defineProperty(editable, 'isContentEditable', { value: true });
    for (const el of [document.createElement('input'), document.createElement('textarea'), document.createElement('select'), editable]) {
      expect(isTypingTarget(el)).toBe(true);
    }
    expect(isTypingTarget(document.createElement('div'))).toBe(false);
    expect(isTypingTarget(window)).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });

  it('converts line and page wheel deltas to pixels', () => {
    expect(wheelPixels({ deltaY: 100, deltaMode: 0 }, 600)).toBe(100);
    expect(wheelPixels({ deltaY: 3, deltaMode: 1 }, 600)).toBe(48);
    expect(wheelPixels({ deltaY: -1, deltaMode: 2 }, 600)).toBe(-600);
  });
});
