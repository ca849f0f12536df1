import { moveVertex } from '../../geometry/polygon.js';
import type { Snapshot } from '../../history.js';
import { findShape, replaceShape, type ToolContext, type ToolEvent } from '../tool.js';
import { ShapeEdit } from './ShapeEdit.js';

/** Drags one polygon vertex. `given` is set when the vertex was just inserted, so undo removes it too. */
export class VertexDragging extends ShapeEdit {
  readonly name = 'vertexDragging';

  constructor(
    shapeId: string,
    private readonly index: number,
    private readonly given?: Snapshot,
  ) {
    super(shapeId);
  }

  override onEnter(ctx: ToolContext): void {
    if (this.given) this.before = this.given;
    else super.onEnter(ctx);
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const g = findShape(ctx.state.shapes, this.shapeId)?.geometry;
    if (g?.kind !== 'polygon') return;
    ctx.preview(replaceShape(ctx.state.shapes, this.shapeId, moveVertex(g, this.index, ctx.clamp(e.point))));
  }
}
