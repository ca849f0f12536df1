import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { FirstEdge } from './FirstEdge.js';

export class RBoxIdle implements ToolState {
  readonly name = 'idle';

  onEnter(ctx: ToolContext): void {
    ctx.setHover(null, null);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    if (ctx.requireLabel()) ctx.transition(new FirstEdge(ctx.clamp(e.point)));
  }
}
