import type { ColorPaths } from '../pathCache';
import type { PathRecorder } from '../pathRecorder';

/** Shapes are tinted, not covered: the defect under them must stay visible. */
export const FILL_ALPHA = 0.18;
/**
 * Outline width in CSS px at every zoom. One device pixel lets Skia's software rasterizer take its hairline
 * path; wider strokes (and round joins) cost three times as much on 40,000 segments.
 */
export const STROKE_PX = 1;
const DASH_PX = [6, 4];

/**
 * Vector drawing of the cached shapes (one fill and one stroke per colour) and the test results (dashed), into
 * a context whose transform maps image coordinates to device pixels at `scale` CSS px per image px.
 */
export function drawShapePaths(
  ctx: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D,
  shapes: ColorPaths<PathRecorder>,
  tests: ColorPaths<PathRecorder> | null,
  scale: number,
): void {
  ctx.lineWidth = STROKE_PX / scale;
  for (const [color, recorded] of shapes.byColor) {
    const path = recorded.toPath2D();
    ctx.globalAlpha = FILL_ALPHA;
    ctx.fillStyle = color;
    ctx.fill(path);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = color;
    ctx.stroke(path);
  }
  if (!tests) return;
  ctx.setLineDash(DASH_PX.map((d) => d / scale));
  for (const [color, path] of tests.byColor) {
    ctx.strokeStyle = color;
    ctx.stroke(path.toPath2D());
  }
  ctx.setLineDash([]);
}
