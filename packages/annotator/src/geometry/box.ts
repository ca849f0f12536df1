import type { BoxGeometry } from '@loupe/contracts';
import { imagePoint, type ImagePoint } from '../types.js';

/** Handle indices run clockwise from top-left: corners TL, TR, BR, BL; edges top, right, bottom, left. */
export type ResizeHandle = { readonly kind: 'corner' | 'edge'; readonly index: number };

export function normalizeBox(b: BoxGeometry): BoxGeometry {
  if (b.x1 <= b.x2 && b.y1 <= b.y2) return b;
  return { ...b, x1: Math.min(b.x1, b.x2), y1: Math.min(b.y1, b.y2), x2: Math.max(b.x1, b.x2), y2: Math.max(b.y1, b.y2) };
}

export function boxFromPoints(a: ImagePoint, b: ImagePoint): BoxGeometry {
  return normalizeBox({ kind: 'box', x1: a.x, y1: a.y, x2: b.x, y2: b.y });
}

export function boxCorners(b: BoxGeometry): ImagePoint[] {
  return [imagePoint(b.x1, b.y1), imagePoint(b.x2, b.y1), imagePoint(b.x2, b.y2), imagePoint(b.x1, b.y2)];
}

export const boxArea = (b: BoxGeometry) => Math.abs(b.x2 - b.x1) * Math.abs(b.y2 - b.y1);

export function boxContains(b: BoxGeometry, p: ImagePoint): boolean {
  const n = normalizeBox(b);
  return p.x >= n.x1 && p.x <= n.x2 && p.y >= n.y1 && p.y <= n.y2;
}

/**
 * Moves one corner or edge to `to` while the opposite one stays put. Dragging past the opposite side flips the
 * box instead of producing a negative size.
 */
export function resizeBox(b: BoxGeometry, handle: ResizeHandle, to: ImagePoint): BoxGeometry {
  const n = normalizeBox(b);
  let { x1, y1, x2, y2 } = n;
  if (handle.kind === 'corner') {
    if (handle.index === 0 || handle.index === 3) x1 = to.x;
    else x2 = to.x;
    if (handle.index === 0 || handle.index === 1) y1 = to.y;
    else y2 = to.y;
  } else if (handle.index === 0) y1 = to.y;
  else if (handle.index === 1) x2 = to.x;
  else if (handle.index === 2) y2 = to.y;
  else x1 = to.x;
  return normalizeBox({ ...n, x1, y1, x2, y2 });
}
