import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { PolygonDrawing } from './PolygonDrawing.js';

export class PolygonIdle implements ToolState {
  readonly name = 'idle';

  onEnter(ctx: ToolContext): void {
    ctx.setHover(null, null);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    if (ctx.requireLabel()) ctx.transition(new PolygonDrawing([ctx.clamp(e.point)]));
  }
}
