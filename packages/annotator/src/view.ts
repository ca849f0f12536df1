import { handlesOf } from './geometry/hit.js';
import type { EditorState, Handle } from './types.js';

/**
 * What a renderer needs beyond the state itself, derived here so the canvas layer holds no geometry: the
 * handles to draw and the CSS cursor to show.
 */
export function selectionHandles(state: EditorState): Handle[] {
  if (state.tool !== 'select' || state.selectedIds.size !== 1 || state.shapesHidden) return [];
  const [id] = state.selectedIds;
  const shape = state.shapes.find((s) => s.id === id);
  if (!shape || state.hiddenLabelIds.has(shape.labelId)) return [];
  return handlesOf(shape, state.viewport.scale);
}

const RESIZE_CURSORS = ['ew-resize', 'nwse-resize', 'ns-resize', 'nesw-resize'] as const;
/** Direction of each handle in the shape's own frame, degrees clockwise from +x (corners TL TR BR BL, edges T R B L). */
const CORNER_DIRECTION = [225, 315, 45, 135];
const EDGE_DIRECTION = [270, 0, 90, 180];

/** A resize cursor turns with a rotated box, snapped to the four cursors CSS has. */
function resizeCursor(direction: number): string {
  const d = ((direction % 180) + 180) % 180;
  return RESIZE_CURSORS[Math.round(d / 45) % 4]!;
}

export function cursorFor(state: EditorState): string {
  if (state.panning) return 'grab';
  if (state.tool === 'pan') return state.toolState === 'dragging' ? 'grabbing' : 'grab';
  if (state.tool !== 'select') return 'crosshair';
  if (state.toolState === 'translating') return 'move';
  if (state.toolState === 'marquee') return 'crosshair';
  const handle = state.hover.handle;
  if (!handle) return state.hover.shapeId ? 'move' : 'default';
  if (handle.kind === 'vertex') return 'pointer';
  if (handle.kind === 'midpoint') return 'copy';
  if (handle.kind === 'rotate') return 'grab';
  const shape = state.shapes.find((s) => s.id === handle.shapeId);
  const angle = shape?.geometry.kind === 'rbox' ? shape.geometry.angle : 0;
  const base = handle.kind === 'corner' ? CORNER_DIRECTION[handle.index] : EDGE_DIRECTION[handle.index];
  return resizeCursor((base ?? 0) + angle);
}
