import type { Handle, ImagePoint, Shape } from '../types.js';
import { distance, fromPair, midpoint } from './point.js';
import { rotateHandlePoint } from './rbox.js';
import { bounds, contains, distanceToEdge, outline } from './shape.js';

/** Screen px within which a pointer hits an edge or a handle, whatever the zoom. */
export const HIT_TOLERANCE_PX = 6;
/** Side of a drawn handle square, screen px. */
export const HANDLE_SIZE_PX = 8;
/** Distance of the rotate handle beyond a rotated box's top edge, screen px. */
export const ROTATE_HANDLE_OFFSET_PX = 24;
/** A polygon edge shorter than this on screen gets no midpoint handle: it would sit on the vertex handles. */
const MIDPOINT_MIN_EDGE_PX = 24;

export interface Hit {
  readonly shapeId: string;
  readonly handle: Handle | null;
}

/** Handles of one shape at the given zoom (positions that depend on screen distances scale with it). */
export function handlesOf(shape: Shape, scale: number): Handle[] {
  const g = shape.geometry;
  const shapeId = shape.id;
  if (g.kind === 'polygon') {
    const pts = g.points.map(fromPair);
    const handles: Handle[] = pts.map((at, index) => ({ shapeId, kind: 'vertex', index, at }));
    pts.forEach((a, index) => {
      const b = pts[(index + 1) % pts.length]!;
      if (distance(a, b) * scale >= MIDPOINT_MIN_EDGE_PX) handles.push({ shapeId, kind: 'midpoint', index, at: midpoint(a, b) });
    });
    return handles;
  }
  const corners = outline(g);
  const handles: Handle[] = corners.map((at, index) => ({ shapeId, kind: 'corner', index, at }));
  corners.forEach((a, index) => handles.push({ shapeId, kind: 'edge', index, at: midpoint(a, corners[(index + 1) % 4]!) }));
  if (g.kind === 'rbox') handles.push({ shapeId, kind: 'rotate', index: 0, at: rotateHandlePoint(g, ROTATE_HANDLE_OFFSET_PX / scale) });
  return handles;
}

/**
 * Handles first (the nearest within the tolerance; on a tie the earlier one, so vertices beat midpoints), then
 * the topmost shape whose inside or outline (within the tolerance) is under the point. `tolerance` is in image
 * px: the caller divides its screen tolerance by the zoom.
 */
export function hitTest(shapes: readonly Shape[], p: ImagePoint, tolerance: number, handles: readonly Handle[] = []): Hit | null {
  let best: Handle | null = null;
  let bestDistance = Infinity;
  for (const h of handles) {
    const d = distance(h.at, p);
    if (d <= tolerance && d < bestDistance) {
      best = h;
      bestDistance = d;
    }
  }
  if (best) return { shapeId: best.shapeId, handle: best };
  for (let i = shapes.length - 1; i >= 0; i--) {
    const shape = shapes[i]!;
    const b = bounds(shape.geometry);
    if (p.x < b.minX - tolerance || p.x > b.maxX + tolerance || p.y < b.minY - tolerance || p.y > b.maxY + tolerance) continue;
    if (contains(shape.geometry, p) || distanceToEdge(shape.geometry, p) <= tolerance) return { shapeId: shape.id, handle: null };
  }
  return null;
}
