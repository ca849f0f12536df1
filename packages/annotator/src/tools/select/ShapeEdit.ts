import { area } from '../../geometry/shape.js';
import type { Snapshot } from '../../history.js';
import { findShape, type ToolContext, type ToolEvent, type ToolState } from '../tool.js';
import { SelectIdle } from './SelectIdle.js';

/**
 * A drag that reshapes one shape (resize, rotate, vertex): history is marked on enter, Escape restores the
 * shape, pointer-up commits. Below the minimum area the shape goes back to how it was (with the tooSmall
 * notice) instead of being deleted by a resize.
 */
export abstract class ShapeEdit implements ToolState {
  abstract readonly name: string;
  protected before: Snapshot = [];

  constructor(protected readonly shapeId: string) {}

  onEnter(ctx: ToolContext): void {
    this.before = ctx.mark();
  }

  abstract onPointerMove(ctx: ToolContext, e: ToolEvent): void;

  onPointerUp(ctx: ToolContext): void {
    ctx.transition(new SelectIdle());
    const shape = findShape(ctx.state.shapes, this.shapeId);
    if (shape && area(shape.geometry) < ctx.state.minArea) {
      ctx.restore(this.before);
      ctx.notice('tooSmall', { minArea: ctx.state.minArea });
      return;
    }
    ctx.commit(this.before);
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.restore(this.before);
    ctx.transition(new SelectIdle());
    return true;
  }
}
