import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { BoxDrawing } from './BoxDrawing.js';

export class BoxIdle implements ToolState {
  readonly name = 'idle';

  onEnter(ctx: ToolContext): void {
    ctx.setHover(null, null);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    if (ctx.requireLabel()) ctx.transition(new BoxDrawing(ctx.clamp(e.point)));
  }
}
