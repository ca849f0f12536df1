import type { Geometry, NewAnnotation } from '@loupe/contracts';
import { clampToImage, type ImageSize } from './geometry/clamp.js';
import type { Shape } from './types.js';

/**
 * Local ids 's1', 's2', …: server ids change with every saved version, so the editor keeps its own. The counter
 * only grows, so an id deleted and undone never collides with a newer shape.
 */
export class IdSource {
  private last = 0;

  next(): string {
    return `s${++this.last}`;
  }

  /** Moves the counter past every 'sN' id in `shapes`, so new ids never collide with loaded ones. */
  observe(shapes: readonly Shape[]): void {
    for (const s of shapes) {
      const n = localIdNumber(s.id);
      if (n > this.last) this.last = n;
    }
  }
}

/** N of an 's' + digits id, else -1: a loop over char codes, as a load reads 2,000 of them. */
function localIdNumber(id: string): number {
  if (id.length < 2 || id.charCodeAt(0) !== 115) return -1;
  let n = 0;
  for (let i = 1; i < id.length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** Shapes entering the editor: clamped to the image, with a fresh id for any missing or repeated one. */
export function prepareShapes(shapes: readonly Shape[], image: ImageSize, ids: IdSource): Shape[] {
  ids.observe(shapes);
  const seen = new Set<string>();
  return shapes.map((s) => {
    const geometry = clampToImage(s.geometry, image);
    const id = s.id && !seen.has(s.id) ? s.id : ids.next();
    seen.add(id);
    return geometry === s.geometry && id === s.id ? s : { ...s, id, geometry };
  });
}

/** Server annotations → editor shapes ('s1', 's2', … in order). */
export function toShapes(annotations: readonly { readonly labelId: number; readonly geometry: Geometry }[]): Shape[] {
  return annotations.map((a, i) => ({ id: `s${i + 1}`, labelId: a.labelId, geometry: a.geometry }));
}

/** Editor shapes → the save body's annotations. */
export function toAnnotations(shapes: readonly Shape[]): NewAnnotation[] {
  return shapes.map((s) => ({ labelId: s.labelId, geometry: s.geometry }));
}

/** Same shapes by reference, element by element: a drag that ends where it started is not a change. */
export function sameShapes(a: readonly Shape[], b: readonly Shape[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
