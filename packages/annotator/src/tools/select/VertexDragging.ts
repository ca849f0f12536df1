import { moveVertex } from '../../geometry/polygon.js';
import type { Snapshot } from '../../history.js';
import { findShape, replaceShape, type ToolContext, type ToolEvent, type ToolState } from '../tool.js';
import { finishEdit } from './finishEdit.js';
import { SelectIdle } from './SelectIdle.js';

/** Drags one polygon vertex. `before` is given when the vertex was just inserted, so undo removes it too. */
export class VertexDragging implements ToolState {
  readonly name = 'vertexDragging';
  private before: Snapshot = [];

  constructor(
    private readonly shapeId: string,
    private readonly index: number,
    private readonly given?: Snapshot,
  ) {}

  onEnter(ctx: ToolContext): void {
    this.before = this.given ?? ctx.mark();
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const g = findShape(ctx.state.shapes, this.shapeId)?.geometry;
    if (g?.kind !== 'polygon') return;
    ctx.preview(replaceShape(ctx.state.shapes, this.shapeId, moveVertex(g, this.index, ctx.clamp(e.point))));
  }

  onPointerUp(ctx: ToolContext): void {
    ctx.transition(new SelectIdle());
    finishEdit(ctx, this.before, this.shapeId);
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.restore(this.before);
    ctx.transition(new SelectIdle());
    return true;
  }
}
