import { mmPerPxFromLine } from '@loupe/contracts';

/** A point in image pixels (not screen pixels): what the server's CalibrationLine holds. */
export type ImagePoint = { readonly x: number; readonly y: number } & { readonly __space?: 'image' };
export interface ScreenPoint {
  clientX: number;
  clientY: number;
}
export interface DrawnRect {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * A click on the image, drawn at `rect` on screen, in the image's own pixels, kept inside the image so the
 * server's "inside the image" rule never refuses a line drawn to the very edge.
 */
export function toImagePoint(p: ScreenPoint, rect: DrawnRect, size: { width: number; height: number }): ImagePoint {
  const clamp = (v: number, hi: number) => Math.min(hi, Math.max(0, v));
  const x = ((p.clientX - rect.left) / rect.width) * size.width;
  const y = ((p.clientY - rect.top) / rect.height) * size.height;
  return { x: Math.round(clamp(x, size.width) * 100) / 100, y: Math.round(clamp(y, size.height) * 100) / 100 };
}

export const lineLength = (a: ImagePoint, b: ImagePoint) => Math.hypot(b.x - a.x, b.y - a.y);

/** Millimetres per pixel of a line of `lengthMm`; null until there is a line with a length and a positive length. */
export function scaleOfLine(a: ImagePoint | null, b: ImagePoint | null, lengthMm: number | null | undefined): number | null {
  if (!a || !b || lengthMm === null || lengthMm === undefined || !(lengthMm > 0) || !Number.isFinite(lengthMm)) return null;
  return mmPerPxFromLine({ x1: a.x, y1: a.y, x2: b.x, y2: b.y, lengthMm });
}
