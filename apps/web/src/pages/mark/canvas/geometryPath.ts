import { rboxCorners } from '@loupe/annotator';
import type { Geometry } from '@loupe/contracts';

/** Anything with the path-building half of the canvas API: a Path2D or a 2D context. */
export type PathSink = Pick<CanvasPath, 'moveTo' | 'lineTo' | 'closePath' | 'rect'>;

/** Appends the outline of a geometry in image coordinates (the caller sets the view transform). */
export function appendGeometry(path: PathSink, g: Geometry): void {
  if (g.kind === 'box') {
    path.rect(g.x1, g.y1, g.x2 - g.x1, g.y2 - g.y1);
    return;
  }
  if (g.kind === 'rbox') {
    const corners = rboxCorners(g);
    path.moveTo(corners[0]!.x, corners[0]!.y);
    for (let i = 1; i < 4; i++) path.lineTo(corners[i]!.x, corners[i]!.y);
    path.closePath();
    return;
  }
  const pts = g.points;
  if (pts.length === 0) return;
  path.moveTo(pts[0]![0], pts[0]![1]);
  for (let i = 1; i < pts.length; i++) path.lineTo(pts[i]![0], pts[i]![1]);
  path.closePath();
}
