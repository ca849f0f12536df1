import { rboxCorners } from '@loupe/annotator';
import type { Geometry } from '@loupe/contracts';

/**
 * A shape's outline in image pixels: a box's four corners, a rotated box's four corners, a polygon's points.
 */
export function outline(g: Geometry): [number, number][] {
  if (g.kind === 'box') {
    return [
      [g.x1, g.y1],
      [g.x2, g.y1],
      [g.x2, g.y2],
      [g.x1, g.y2],
    ];
  }
  // The labeler's own corner maths, so a thumbnail draws a rotated box exactly where the labeler does.
  if (g.kind === 'rbox') return rboxCorners(g).map((p) => [p.x, p.y]);
  return g.points.map(([x, y]) => [x, y]);
}

/** SVG `points` of an outline, rounded to a tenth of a pixel (a page holds thousands of them). */
export function svgPoints(g: Geometry): string {
  return outline(g)
    .map(([x, y]) => `${Math.round(x * 10) / 10},${Math.round(y * 10) / 10}`)
    .join(' ');
}
