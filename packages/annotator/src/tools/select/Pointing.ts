import type { ImagePoint, ScreenPoint } from '../../types.js';
import { DRAG_THRESHOLD_PX, type ToolContext, type ToolEvent, type ToolState } from '../tool.js';
import { SelectIdle } from './SelectIdle.js';
import { Translating } from './Translating.js';

/** Pressed on a shape; not yet a drag. */
export class Pointing implements ToolState {
  readonly name = 'pointing';

  constructor(
    private readonly shapeId: string,
    private readonly fromScreen: ScreenPoint,
    private readonly from: ImagePoint,
    private readonly narrowOnClick: boolean,
  ) {}

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    if (Math.hypot(e.screen.x - this.fromScreen.x, e.screen.y - this.fromScreen.y) < DRAG_THRESHOLD_PX) return;
    const next = new Translating(this.from);
    ctx.transition(next);
    next.onPointerMove(ctx, e);
  }

  onPointerUp(ctx: ToolContext): void {
    if (this.narrowOnClick) ctx.select([this.shapeId]);
    ctx.transition(new SelectIdle());
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.transition(new SelectIdle());
    return true;
  }
}
