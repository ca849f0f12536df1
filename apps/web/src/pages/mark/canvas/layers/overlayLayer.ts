import { HANDLE_SIZE_PX, selectionHandles, toScreen, type Draft, type EditorState, type Handle, type Shape, type Viewport } from '@loupe/annotator';
import { appendGeometry } from '../geometryPath';
import { FALLBACK_COLOR, buildColorPaths, movingIds } from '../pathCache';
import { drawTextTags } from './labelText';
import { STROKE_PX } from './shapeLayer';
import { clear, setImageTransform, setScreenTransform } from './view';

const ACCENT = '#1677ff';
/** A selected shape's tint: on top of its tint in the scene while it rests, alone while it is dragged. */
const SELECTED_FILL_ALPHA = { resting: 0.15, moving: 0.3 };

/**
 * Everything that changes with the pointer: the selection highlight (and, while dragged, the selected shapes
 * themselves, so a drag does not re-render 2,000), the hovered shape, the handles and the shape being drawn.
 */
export function drawOverlayLayer(ctx: CanvasRenderingContext2D, state: EditorState, colors: ReadonlyMap<number, string>, dpr: number): void {
  clear(ctx);
  const v = state.viewport;
  if (!state.shapesHidden) {
    drawSelection(ctx, state, colors, dpr);
    drawHover(ctx, state, colors, dpr);
  }
  if (state.draft) drawDraft(ctx, state.draft, colors.get(state.activeLabelId ?? -1) ?? ACCENT, v, dpr);
  setScreenTransform(ctx, dpr);
  drawHandles(ctx, selectionHandles(state), state.hover.handle, v);
}

function drawSelection(ctx: CanvasRenderingContext2D, state: EditorState, colors: ReadonlyMap<number, string>, dpr: number): void {
  if (state.selectedIds.size === 0) return;
  const selected: Shape[] = state.shapes.filter((s) => state.selectedIds.has(s.id) && !state.hiddenLabelIds.has(s.labelId));
  const paths = buildColorPaths(selected, colors, () => new Path2D());
  const fillAlpha = movingIds(state).size > 0 ? SELECTED_FILL_ALPHA.moving : SELECTED_FILL_ALPHA.resting;
  const v = state.viewport;
  setImageTransform(ctx, v, dpr);
  ctx.lineJoin = 'round';
  for (const [color, path] of paths.byColor) {
    ctx.globalAlpha = fillAlpha;
    ctx.fillStyle = color;
    ctx.fill(path);
    ctx.globalAlpha = 1;
    // A white halo under the coloured line: the selection reads on dark and light images alike.
    ctx.lineWidth = (STROKE_PX + 3) / v.scale;
    ctx.strokeStyle = '#ffffff';
    ctx.stroke(path);
    ctx.lineWidth = (STROKE_PX + 1) / v.scale;
    ctx.strokeStyle = color;
    ctx.stroke(path);
  }
  // Resting shapes' texts are already in the scene.
  if (movingIds(state).size === 0) return;
  setScreenTransform(ctx, dpr);
  drawTextTags(ctx, paths.texts, v);
}

function drawHover(ctx: CanvasRenderingContext2D, state: EditorState, colors: ReadonlyMap<number, string>, dpr: number): void {
  const id = state.hover.shapeId;
  if (!id || state.selectedIds.has(id) || state.toolState !== 'idle') return;
  const shape = state.shapes.find((s) => s.id === id);
  if (!shape || state.hiddenLabelIds.has(shape.labelId)) return;
  setImageTransform(ctx, state.viewport, dpr);
  ctx.beginPath();
  appendGeometry(ctx, shape.geometry);
  ctx.lineWidth = (STROKE_PX + 1.5) / state.viewport.scale;
  ctx.strokeStyle = colors.get(shape.labelId) ?? FALLBACK_COLOR;
  ctx.stroke();
}

function drawDraft(ctx: CanvasRenderingContext2D, draft: Draft, color: string, v: Viewport, dpr: number): void {
  setImageTransform(ctx, v, dpr);
  ctx.lineWidth = (STROKE_PX + 0.5) / v.scale;
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  if (draft.kind === 'marquee') {
    ctx.beginPath();
    ctx.rect(draft.from.x, draft.from.y, draft.to.x - draft.from.x, draft.to.y - draft.from.y);
    ctx.globalAlpha = 0.08;
    ctx.fillStyle = ACCENT;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.lineWidth = 1 / v.scale;
    ctx.strokeStyle = ACCENT;
    ctx.setLineDash([4 / v.scale, 3 / v.scale]);
    ctx.stroke();
    ctx.setLineDash([]);
    return;
  }
  if (draft.kind !== 'polygon') {
    ctx.beginPath();
    appendGeometry(ctx, draft.geometry);
    ctx.globalAlpha = 0.12;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.stroke();
    return;
  }
  const [first, ...rest] = draft.points;
  if (!first) return;
  ctx.beginPath();
  ctx.moveTo(first.x, first.y);
  for (const p of rest) ctx.lineTo(p.x, p.y);
  ctx.stroke();
  if (draft.cursor) {
    // The segment that the next click would add, and the closing edge, dashed: not placed yet.
    const last = rest[rest.length - 1] ?? first;
    ctx.beginPath();
    ctx.moveTo(last.x, last.y);
    ctx.lineTo(draft.cursor.x, draft.cursor.y);
    if (draft.points.length >= 2) ctx.lineTo(first.x, first.y);
    ctx.setLineDash([5 / v.scale, 4 / v.scale]);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  setScreenTransform(ctx, dpr);
  draft.points.forEach((p, i) => {
    const s = toScreen(v, p);
    const big = i === 0 && draft.closable;
    ctx.beginPath();
    ctx.arc(s.x, s.y, big ? 6 : 3.5, 0, Math.PI * 2);
    ctx.fillStyle = big ? color : '#ffffff';
    ctx.fill();
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = color;
    ctx.stroke();
  });
}

const sameHandle = (a: Handle, b: Handle | null) => !!b && a.shapeId === b.shapeId && a.kind === b.kind && a.index === b.index;

function drawHandles(ctx: CanvasRenderingContext2D, handles: readonly Handle[], hovered: Handle | null, v: Viewport): void {
  if (handles.length === 0) return;
  const half = HANDLE_SIZE_PX / 2;
  const rotate = handles.find((h) => h.kind === 'rotate');
  const top = handles.find((h) => h.kind === 'edge' && h.index === 0);
  if (rotate && top) {
    const a = toScreen(v, top.at);
    const b = toScreen(v, rotate.at);
    ctx.beginPath();
    ctx.moveTo(a.x, a.y);
    ctx.lineTo(b.x, b.y);
    ctx.lineWidth = 1;
    ctx.strokeStyle = ACCENT;
    ctx.stroke();
  }
  ctx.lineWidth = 1.5;
  for (const h of handles) {
    const s = toScreen(v, h.at);
    const hot = sameHandle(h, hovered);
    ctx.beginPath();
    if (h.kind === 'corner' || h.kind === 'edge') ctx.rect(s.x - half, s.y - half, HANDLE_SIZE_PX, HANDLE_SIZE_PX);
    else ctx.arc(s.x, s.y, h.kind === 'midpoint' ? 3 : h.kind === 'rotate' ? 5 : 4, 0, Math.PI * 2);
    ctx.globalAlpha = h.kind === 'midpoint' && !hot ? 0.6 : 1;
    ctx.fillStyle = hot ? ACCENT : '#ffffff';
    ctx.fill();
    ctx.strokeStyle = ACCENT;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
}
