import type { Viewport } from '@loupe/annotator';
import type { TextAnchor } from '../pathCache';

const FONT = '12px system-ui, sans-serif';
const PAD = 3;
const HEIGHT = 16;

/** Text tags (OCR readings, confidences) above the top-left of their shape, in screen pixels. */
export function drawTextTags(ctx: CanvasRenderingContext2D, tags: readonly TextAnchor[], v: Viewport, dashed = false): void {
  if (tags.length === 0) return;
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  for (const tag of tags) {
    const x = tag.x * v.scale + v.tx;
    const y = tag.y * v.scale + v.ty - HEIGHT;
    if (x > v.width || y > v.height || y < -HEIGHT) continue;
    const w = ctx.measureText(tag.text).width + 2 * PAD;
    if (x + w < 0) continue;
    ctx.globalAlpha = dashed ? 0.7 : 0.85;
    ctx.fillStyle = tag.color;
    ctx.fillRect(x, y, w, HEIGHT);
    ctx.globalAlpha = 1;
    ctx.fillStyle = '#ffffff';
    ctx.fillText(tag.text, x + PAD, y + HEIGHT / 2);
  }
}
