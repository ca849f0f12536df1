import type { Geometry } from '@loupe/contracts';
import { resizeBox, type ResizeHandle } from '../../geometry/box.js';
import { clampToImage } from '../../geometry/clamp.js';
import { resizeRBox } from '../../geometry/rbox.js';
import type { Snapshot } from '../../history.js';
import { findShape, replaceShape, type ToolContext, type ToolEvent, type ToolState } from '../tool.js';
import { finishEdit } from './finishEdit.js';
import { SelectIdle } from './SelectIdle.js';

/** Drags a corner or an edge of a box or a rotated box (in the rotated box's own frame). */
export class Resizing implements ToolState {
  readonly name = 'resizing';
  private before: Snapshot = [];
  private original: Geometry | null = null;

  constructor(
    private readonly shapeId: string,
    private readonly handle: ResizeHandle,
  ) {}

  onEnter(ctx: ToolContext): void {
    this.before = ctx.mark();
    this.original = findShape(this.before, this.shapeId)?.geometry ?? null;
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const g = this.original;
    if (!g || g.kind === 'polygon') return;
    const to = ctx.clamp(e.point);
    const resized = g.kind === 'box' ? resizeBox(g, this.handle, to) : resizeRBox(g, this.handle, to);
    ctx.preview(replaceShape(this.before, this.shapeId, clampToImage(resized, ctx.state.image)));
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
