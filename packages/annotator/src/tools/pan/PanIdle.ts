import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { PanDragging } from './PanDragging.js';

export class PanIdle implements ToolState {
  readonly name = 'idle';

  onEnter(ctx: ToolContext): void {
    ctx.setHover(null, null);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    ctx.transition(new PanDragging(e.screen));
  }
}
