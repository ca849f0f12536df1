import { deleteVertex, insertVertex } from '../../geometry/polygon.js';
import { replaceShape, findShape, type ToolContext, type ToolEvent, type ToolState } from '../tool.js';
import { Marquee } from './Marquee.js';
import { Pointing } from './Pointing.js';
import { Resizing } from './Resizing.js';
import { Rotating } from './Rotating.js';
import { VertexDragging } from './VertexDragging.js';

export class SelectIdle implements ToolState {
  readonly name = 'idle';

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const hit = ctx.hitTest(e.screen);
    ctx.setHover(hit?.shapeId ?? null, hit?.handle ?? null);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    const hit = ctx.hitTest(e.screen);
    const selected = ctx.state.selectedIds;
    if (!hit) {
      if (!e.input.shift) ctx.select([]);
      ctx.transition(new Marquee(e.point, e.input.shift ? selected : new Set()));
      return;
    }
    const { handle, shapeId } = hit;
    if (handle) {
      const shape = findShape(ctx.state.shapes, shapeId);
      if (handle.kind === 'vertex' && e.input.alt) {
        if (shape?.geometry.kind !== 'polygon') return;
        const before = ctx.mark();
        ctx.preview(replaceShape(before, shapeId, deleteVertex(shape.geometry, handle.index)));
        ctx.commit(before);
      } else if (handle.kind === 'midpoint') {
        if (shape?.geometry.kind !== 'polygon') return;
        // Inserting belongs to the drag that follows: one undo step takes back both, Escape takes back both.
        const before = ctx.mark();
        ctx.preview(replaceShape(before, shapeId, insertVertex(shape.geometry, handle.index, handle.at)));
        ctx.transition(new VertexDragging(shapeId, handle.index + 1, before));
      } else if (handle.kind === 'vertex') ctx.transition(new VertexDragging(shapeId, handle.index));
      else if (handle.kind === 'rotate') ctx.transition(new Rotating(shapeId, e.point));
      else ctx.transition(new Resizing(shapeId, { kind: handle.kind, index: handle.index }));
      return;
    }
    if (e.input.shift) {
      const next = new Set(selected);
      if (next.has(shapeId)) {
        next.delete(shapeId);
        ctx.select(next);
        return;
      }
      ctx.select(next.add(shapeId));
      ctx.transition(new Pointing(shapeId, e.screen, e.point, false));
      return;
    }
    const already = selected.has(shapeId);
    if (!already) ctx.select([shapeId]);
    // A click (no drag) on a shape of a multi-selection narrows the selection to it; a drag moves them all.
    ctx.transition(new Pointing(shapeId, e.screen, e.point, already && selected.size > 1));
  }
}
