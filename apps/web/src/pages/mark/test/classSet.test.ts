import { describe, expect, it } from 'vitest';
import { classSetKey, classSetOf, EMPTY_SET, isLabeledSet, sameSet, toggleClass, toggleNone, withSet } from '../classify/classSet';
import { image } from './fixtures';

describe('multi-label class sets', () => {
  it('toggles classes in and out, kept ascending; a class replaces a confirmed none', () => {
    const a = toggleClass(EMPTY_SET, 9);
    const b = toggleClass(a, 3);
    expect(b).toEqual({ labelIds: [3, 9], none: false });
    expect(toggleClass(b, 9)).toEqual({ labelIds: [3], none: false });
    expect(toggleClass(toggleClass(b, 3), 9)).toEqual(EMPTY_SET);
    expect(toggleClass({ labelIds: [], none: true }, 4)).toEqual({ labelIds: [4], none: false });
  });

  it('"none of these" clears the classes, and a second press takes the confirmation back', () => {
    expect(toggleNone({ labelIds: [3, 4], none: false })).toEqual({ labelIds: [], none: true });
    expect(toggleNone({ labelIds: [], none: true })).toEqual(EMPTY_SET);
  });

  it('labeled means at least one class or a confirmed none; an empty set is unlabeled', () => {
    expect(isLabeledSet(EMPTY_SET)).toBe(false);
    expect(isLabeledSet({ labelIds: [], none: true })).toBe(true);
    expect(isLabeledSet({ labelIds: [2], none: false })).toBe(true);
  });

  it('reads and writes an image: a single-label image (no classLabelIds) is an empty set', () => {
    expect(classSetOf(image(1))).toEqual(EMPTY_SET);
    const img = withSet(image(1), { labelIds: [5, 2], none: false });
    expect([img.classLabelIds, img.noClass, img.labeled]).toEqual([[5, 2], false, true]);
    expect(classSetOf(img)).toEqual({ labelIds: [2, 5], none: false });
    expect(withSet(img, EMPTY_SET).labeled).toBe(false);
  });

  it('compares sets by members and the confirmation', () => {
    expect(sameSet({ labelIds: [1, 2], none: false }, { labelIds: [1, 2], none: false })).toBe(true);
    expect(sameSet({ labelIds: [1], none: false }, { labelIds: [1, 2], none: false })).toBe(false);
    expect(sameSet(EMPTY_SET, { labelIds: [], none: true })).toBe(false);
  });

  it('maps keys: 1–9 toggle up to the shortcut count, 0 clears, N confirms none, Enter moves on', () => {
    expect(classSetKey('1', 9)).toEqual({ kind: 'toggle', shortcut: 1 });
    expect(classSetKey('9', 9)).toEqual({ kind: 'toggle', shortcut: 9 });
    expect(classSetKey('5', 4)).toBeNull();
    expect(classSetKey('0', 9)).toEqual({ kind: 'clear' });
    expect(classSetKey('n', 9)).toEqual({ kind: 'none' });
    expect(classSetKey('N', 9)).toEqual({ kind: 'none' });
    expect(classSetKey('Enter', 9)).toEqual({ kind: 'next' });
    expect(classSetKey('ArrowRight', 9)).toBeNull();
    expect(classSetKey('x', 9)).toBeNull();
  });
});
