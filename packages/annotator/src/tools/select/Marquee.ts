import { bounds, boundsInside } from '../../geometry/shape.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { SelectIdle } from './SelectIdle.js';

/**
 * Drag on empty space: shapes entirely inside the rectangle join the selection (whole shapes only, so a big
 * shape under a small drag is not picked by accident). Shift keeps what was selected before.
 */
export class Marquee implements ToolState {
  readonly name = 'marquee';

  constructor(
    private readonly from: ImagePoint,
    private readonly base: ReadonlySet<string>,
  ) {}

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    ctx.setDraft({ kind: 'marquee', from: this.from, to: e.point });
    const area = {
      minX: Math.min(this.from.x, e.point.x),
      minY: Math.min(this.from.y, e.point.y),
      maxX: Math.max(this.from.x, e.point.x),
      maxY: Math.max(this.from.y, e.point.y),
    };
    const ids = new Set(this.base);
    for (const s of ctx.visibleShapes()) if (boundsInside(bounds(s.geometry), area)) ids.add(s.id);
    ctx.select(ids);
  }

  onPointerUp(ctx: ToolContext): void {
    ctx.setDraft(null);
    ctx.transition(new SelectIdle());
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.select(this.base);
    ctx.setDraft(null);
    ctx.transition(new SelectIdle());
    return true;
  }
}
