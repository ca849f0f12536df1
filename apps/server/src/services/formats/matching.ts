import { baseName, stemOf } from './types.js';

/** How an annotation file's image reference is normalised: forward slashes, no leading ./, lower case. */
export const refKey = (ref: string) =>
  ref
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '')
    .trim()
    .toLowerCase();

const pathStem = (p: string) => {
  const slash = p.lastIndexOf('/');
  const dot = p.lastIndexOf('.');
  return dot > slash + 1 ? p.slice(0, dot) : p;
};

export type Resolved<T> = { targets: T[] } | { ambiguous: T[] } | null;

/**
 * Finds the image an annotation file means (issue 33 item 2), trying in order:
 * 1. the exact name or path (case-insensitive);
 * 2. the path's end: "images/a.jpg" names "dataset/train/images/a.jpg" in the ZIP;
 * 3. the path without its extension (YOLO and DOTA name images by their label file: "train/images/a");
 * 4. the name without folders;
 * 5. the stem: the name without folders or extension ("a" or "a.png" for "a.jpg").
 * The first level that finds anything decides: one image is the match; several are ambiguous and reported,
 * never guessed. Several gallery images under one identical name are one name's images: all of them match,
 * as the annotation ZIP always did (an image uploaded twice under one name holds the same labels).
 */
export class ImageMatcher<T> {
  private readonly exact = new Map<string, T[]>();
  /** Every path's proper ends after a folder ("train/images/a.jpg" → "images/a.jpg", "a.jpg"). */
  private readonly ends = new Map<string, T[]>();
  private readonly stems = new Map<string, T[]>();
  private readonly bases = new Map<string, T[]>();
  private readonly baseStems = new Map<string, T[]>();
  private readonly sameName = new Map<T, string>();

  /**
   * `path` is the gallery name or the path inside the ZIP; `aliases` other references meaning the same image.
   * `gallery`: an image already in the model (several under one identical name match together).
   */
  add(target: T, path: string, aliases: string[] = [], gallery = false): void {
    const key = refKey(path);
    if (gallery) this.sameName.set(target, key);
    for (const k of [key, ...aliases.map(refKey)]) push(this.exact, k, target);
    for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) push(this.ends, key.slice(i + 1), target);
    push(this.stems, pathStem(key), target);
    push(this.bases, baseName(key), target);
    push(this.baseStems, stemOf(key), target);
  }

  resolve(ref: string): Resolved<T> {
    const key = refKey(ref);
    if (!key) return null;
    const levels: (() => T[] | undefined)[] = [
      () => this.exact.get(key),
      () => (key.includes('/') ? this.ends.get(key) : undefined),
      () => this.stems.get(pathStem(key)) ?? (pathStem(key) === key ? undefined : this.stems.get(key)),
      () => this.bases.get(baseName(key)),
      () => this.baseStems.get(stemOf(key)) ?? this.baseStems.get(baseName(key)),
    ];
    for (const level of levels) {
      const found = [...new Set(level() ?? [])];
      if (found.length === 0) continue;
      const names = new Set(found.map((t) => this.sameName.get(t)));
      if (found.length === 1 || (names.size === 1 && !names.has(undefined))) return { targets: found };
      return { ambiguous: found };
    }
    return null;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(value)) list.push(value);
  } else map.set(key, [value]);
}
