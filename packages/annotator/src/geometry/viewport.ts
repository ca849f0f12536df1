import { imagePoint, screenPoint, type ImagePoint, type ScreenPoint, type Viewport } from '../types.js';
import type { ImageSize } from './clamp.js';

/** Below 2 % a large image is a dot; above 64× one pixel fills a handle. */
export const MIN_SCALE = 0.02;
export const MAX_SCALE = 64;
/** Screen px left around the image by fit, so its border and edge handles stay grabbable. */
export const FIT_MARGIN = 16;

export const clampScale = (s: number) => Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));

export const toImage = (v: Viewport, p: ScreenPoint) => imagePoint((p.x - v.tx) / v.scale, (p.y - v.ty) / v.scale);
export const toScreen = (v: Viewport, p: ImagePoint) => screenPoint(p.x * v.scale + v.tx, p.y * v.scale + v.ty);

/** Zooms so that the image point under `at` stays under `at`. */
export function zoomAround(v: Viewport, factor: number, at: ScreenPoint): Viewport {
  if (!Number.isFinite(factor) || factor <= 0) return v;
  const scale = clampScale(v.scale * factor);
  if (scale === v.scale) return v;
  const anchor = toImage(v, at);
  return { ...v, scale, tx: at.x - anchor.x * scale, ty: at.y - anchor.y * scale };
}

export function panBy(v: Viewport, dx: number, dy: number): Viewport {
  return dx === 0 && dy === 0 ? v : { ...v, tx: v.tx + dx, ty: v.ty + dy };
}

/** Whole image centred with a margin; a tiny canvas gives up the margin rather than the image. */
export function fitViewport(v: Viewport, image: ImageSize, margin = FIT_MARGIN): Viewport {
  if (v.width <= 0 || v.height <= 0 || image.width <= 0 || image.height <= 0) return v;
  const m = Math.min(margin, v.width / 4, v.height / 4);
  const scale = clampScale(Math.min((v.width - 2 * m) / image.width, (v.height - 2 * m) / image.height));
  return { ...v, scale, tx: (v.width - image.width * scale) / 2, ty: (v.height - image.height * scale) / 2 };
}

/** A resized canvas keeps the image point at its centre where it was, so the view does not jump. */
export function resizeViewport(v: Viewport, width: number, height: number): Viewport {
  if (width === v.width && height === v.height) return v;
  return { ...v, width, height, tx: v.tx + (width - v.width) / 2, ty: v.ty + (height - v.height) / 2 };
}

export const emptyViewport: Viewport = { scale: 1, tx: 0, ty: 0, width: 0, height: 0 };
