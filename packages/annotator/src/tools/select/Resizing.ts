import type { Geometry } from '@loupe/contracts';
import { resizeBox, type ResizeHandle } from '../../geometry/box.js';
import { clampToImage } from '../../geometry/clamp.js';
import { resizeRBox } from '../../geometry/rbox.js';
import { findShape, replaceShape, type ToolContext, type ToolEvent } from '../tool.js';
import { ShapeEdit } from './ShapeEdit.js';

/** Drags a corner or an edge of a box or a rotated box (in the rotated box's own frame). */
export class Resizing extends ShapeEdit {
  readonly name = 'resizing';
  private original: Geometry | null = null;

  constructor(
    shapeId: string,
    private readonly handle: ResizeHandle,
  ) {
    super(shapeId);
  }

  override onEnter(ctx: ToolContext): void {
    super.onEnter(ctx);
    this.original = findShape(this.before, this.shapeId)?.geometry ?? null;
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const g = this.original;
    if (!g || g.kind === 'polygon') return;
    const to = ctx.clamp(e.point);
    const resized = g.kind === 'box' ? resizeBox(g, this.handle, to) : resizeRBox(g, this.handle, to);
    ctx.preview(replaceShape(this.before, this.shapeId, clampToImage(resized, ctx.state.image)));
  }
}
