import { rboxFromEdge } from '../../geometry/rbox.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { FirstEdge } from './FirstEdge.js';
import { RBoxIdle } from './RBoxIdle.js';

/** The first edge is fixed; the pointer's distance from it is the height, and a click finishes the box. */
export class Height implements ToolState {
  readonly name = 'height';
  readonly unfinished = true;

  constructor(
    private readonly p1: ImagePoint,
    private readonly p2: ImagePoint,
  ) {}

  onEnter(ctx: ToolContext): void {
    ctx.setDraft({ kind: 'rbox', geometry: rboxFromEdge(this.p1, this.p2, null) });
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    ctx.setDraft({ kind: 'rbox', geometry: rboxFromEdge(this.p1, this.p2, ctx.clamp(e.point)) });
  }

  // Finishing on press rather than release: the box is where the user clicked even if the pointer slips.
  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    ctx.setDraft(null);
    ctx.transition(new RBoxIdle());
    ctx.addDrawn(rboxFromEdge(this.p1, this.p2, ctx.clamp(e.point)));
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.setDraft(null);
    ctx.transition(new RBoxIdle());
    return true;
  }

  /** Backspace takes back the first edge's end, as it takes back a polygon's last point. */
  onDeleteLast(ctx: ToolContext): boolean {
    ctx.transition(new FirstEdge(this.p1));
    return true;
  }
}
