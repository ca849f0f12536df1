/** Above this zoom the image is drawn without smoothing, so an inspector sees the real pixels. */
const PIXELATED_FROM_SCALE = 3;

export interface ImageLook {
  /** Percent, 100 = unchanged. */
  readonly brightness: number;
  readonly contrast: number;
}

export const cssFilter = (look: ImageLook) =>
  look.brightness === 100 && look.contrast === 100 ? 'none' : `brightness(${look.brightness}%) contrast(${look.contrast}%)`;

/** Whether this browser's 2D context applies `filter` (Safari before 18 ignores it). */
export const canvasFilters = (ctx: { filter?: string }) => typeof ctx.filter === 'string';

/**
 * The image stretched to the editor's image size (the server's width and height, which the annotations use),
 * whatever the decoded size; the context's transform maps image px to device px.
 */
export function drawImageInto(ctx: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D, source: CanvasImageSource, size: { width: number; height: number }, scale: number, filter: string): void {
  ctx.imageSmoothingEnabled = scale < PIXELATED_FROM_SCALE;
  if (filter !== 'none') ctx.filter = filter;
  ctx.drawImage(source, 0, 0, size.width, size.height);
  if (filter !== 'none') ctx.filter = 'none';
}
