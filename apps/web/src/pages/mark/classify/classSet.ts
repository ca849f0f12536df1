import type { ImageData } from '@loupe/contracts';

/**
 * Multi-label classification (several classes per image), the pure part. An image holds a set of classes, or
 * the user's "none of these" (a confirmed negative that trains with an empty set); an empty set without it is
 * unlabeled. Labeled = at least one class, or confirmed none (the server's rule, mirrored for the screen).
 */
export interface ClassSet {
  /** Ascending label ids. */
  labelIds: number[];
  none: boolean;
}

export const EMPTY_SET: ClassSet = { labelIds: [], none: false };

export function classSetOf(image: ImageData): ClassSet {
  return { labelIds: [...(image.classLabelIds ?? [])].sort((a, b) => a - b), none: image.noClass === true };
}

/** Adds or removes one class; any class replaces a confirmed none. */
export function toggleClass(set: ClassSet, labelId: number): ClassSet {
  const has = set.labelIds.includes(labelId);
  const labelIds = has ? set.labelIds.filter((id) => id !== labelId) : [...set.labelIds, labelId].sort((a, b) => a - b);
  return { labelIds, none: false };
}

/** "None of these": confirms the image as a negative (its classes go), or takes the confirmation back. */
export function toggleNone(set: ClassSet): ClassSet {
  return set.none ? EMPTY_SET : { labelIds: [], none: true };
}

export const isLabeledSet = (set: ClassSet) => set.labelIds.length > 0 || set.none;

export const sameSet = (a: ClassSet, b: ClassSet) => a.none === b.none && a.labelIds.length === b.labelIds.length && a.labelIds.every((id, i) => b.labelIds[i] === id);

/** The image as the screen shows it with `set`. */
export function withSet(image: ImageData, set: ClassSet): ImageData {
  return { ...image, classLabelIds: set.labelIds, noClass: set.none, labeled: isLabeledSet(set) };
}

/** What a key does on the multi-label page: 1–9 toggle a class, 0 clears, N is "none of these", Enter moves on. */
export type ClassSetKey = { kind: 'toggle'; shortcut: number } | { kind: 'clear' } | { kind: 'none' } | { kind: 'next' };

export function classSetKey(key: string, shortcuts: number): ClassSetKey | null {
  if (key === '0') return { kind: 'clear' };
  if (/^[1-9]$/.test(key) && Number(key) <= shortcuts) return { kind: 'toggle', shortcut: Number(key) };
  if (key === 'Enter') return { kind: 'next' };
  if (key.toLowerCase() === 'n') return { kind: 'none' };
  return null;
}
