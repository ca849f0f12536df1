import { clampShift, clampToImage, type ImageSize } from './geometry/clamp.js';
import { area, bounds, translate, unionBounds } from './geometry/shape.js';
import type { Shape } from './types.js';

/** Pasted shapes land this far (image px) from their source, so a paste is visible. */
export const PASTE_OFFSET = 10;

/**
 * The editor's copy buffer. It lives as long as the editor, so shapes copied on one image paste onto the next
 * (same defect, same place, next part).
 */
export class Clipboard {
  private shapes: readonly Shape[] = [];

  copy(shapes: readonly Shape[]): boolean {
    this.shapes = shapes;
    return shapes.length > 0;
  }

  get empty(): boolean {
    return this.shapes.length === 0;
  }

  /**
   * The clipboard 10 px down-right of its source, slid back inside the image as one block and given new ids.
   * Shapes that end up under the minimum area (pasting onto a smaller image) are left out. What is returned
   * becomes the clipboard, so repeated pastes cascade.
   */
  paste(image: ImageSize, minArea: number, nextId: () => string): Shape[] {
    if (this.shapes.length === 0) return [];
    const block = unionBounds(this.shapes.map((s) => bounds(s.geometry)));
    const [dx, dy] = clampShift(block, PASTE_OFFSET, PASTE_OFFSET, image);
    const pasted = this.shapes
      .map((s) => ({ ...s, id: nextId(), geometry: clampToImage(translate(s.geometry, dx, dy), image) }))
      .filter((s) => area(s.geometry) > 0 && area(s.geometry) >= minArea);
    if (pasted.length > 0) this.shapes = pasted;
    return pasted;
  }
}
