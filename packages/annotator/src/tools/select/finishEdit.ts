import { area } from '../../geometry/shape.js';
import type { Snapshot } from '../../history.js';
import { findShape, type ToolContext } from '../tool.js';

/**
 * Ends a drag that reshaped one shape: below the minimum area the shape goes back to how it was (with the
 * tooSmall notice) instead of being deleted by a resize, otherwise the change is committed.
 */
export function finishEdit(ctx: ToolContext, before: Snapshot, shapeId: string): void {
  const shape = findShape(ctx.state.shapes, shapeId);
  if (shape && area(shape.geometry) < ctx.state.minArea) {
    ctx.restore(before);
    ctx.notice('tooSmall', { minArea: ctx.state.minArea });
    return;
  }
  ctx.commit(before);
}
