import type { Viewport } from '@loupe/annotator';

/** Device pixels per CSS pixel, with the view transform: image coordinates in, device pixels out. */
export function setImageTransform(ctx: CanvasRenderingContext2D, v: Viewport, dpr: number): void {
  ctx.setTransform(dpr * v.scale, 0, 0, dpr * v.scale, dpr * v.tx, dpr * v.ty);
}

/** CSS-pixel (screen) coordinates, for text and handles whose size must not change with the zoom. */
export function setScreenTransform(ctx: CanvasRenderingContext2D, dpr: number): void {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
}

export function clear(ctx: CanvasRenderingContext2D): void {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
}
