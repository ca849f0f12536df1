import type { ScreenPoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { PanGesture } from './panGesture.js';
import { PanIdle } from './PanIdle.js';

export class PanDragging implements ToolState {
  readonly name = 'dragging';
  private gesture: PanGesture | null = null;

  constructor(private readonly from: ScreenPoint) {}

  onEnter(ctx: ToolContext): void {
    this.gesture = new PanGesture(this.from, ctx.state.viewport);
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    if (this.gesture) ctx.setViewport(this.gesture.viewportAt(e.screen, ctx.state.viewport));
  }

  onPointerUp(ctx: ToolContext): void {
    ctx.transition(new PanIdle());
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.transition(new PanIdle());
    return true;
  }
}
