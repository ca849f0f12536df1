import { boxFromPoints } from '../../geometry/box.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { BoxIdle } from './BoxIdle.js';

/** Corner to corner; the press point is the fixed corner. */
export class BoxDrawing implements ToolState {
  readonly name = 'drawing';

  constructor(private readonly start: ImagePoint) {}

  onEnter(ctx: ToolContext): void {
    ctx.setDraft({ kind: 'box', geometry: boxFromPoints(this.start, this.start) });
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    ctx.setDraft({ kind: 'box', geometry: boxFromPoints(this.start, ctx.clamp(e.point)) });
  }

  onPointerUp(ctx: ToolContext, e: ToolEvent): void {
    ctx.setDraft(null);
    ctx.transition(new BoxIdle());
    ctx.addDrawn(boxFromPoints(this.start, ctx.clamp(e.point)));
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.setDraft(null);
    ctx.transition(new BoxIdle());
    return true;
  }
}
