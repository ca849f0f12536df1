import { distance } from '../../geometry/point.js';
import { rboxFromEdge } from '../../geometry/rbox.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { Height } from './Height.js';
import { RBoxIdle } from './RBoxIdle.js';

/** Shorter than this on screen, a release is a click: the edge then follows the pointer until the next click. */
const MIN_EDGE_PX = 4;

/** The first edge, from the press point to the pointer: its length is the width and its direction the angle. */
export class FirstEdge implements ToolState {
  readonly name = 'firstEdge';
  readonly unfinished = true;
  private end: ImagePoint;

  constructor(private readonly start: ImagePoint) {
    this.end = start;
  }

  onEnter(ctx: ToolContext): void {
    this.draw(ctx);
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    this.end = ctx.clamp(e.point);
    this.draw(ctx);
  }

  onPointerUp(ctx: ToolContext, e: ToolEvent): void {
    this.end = ctx.clamp(e.point);
    if (distance(this.start, this.end) >= ctx.tolerance(MIN_EDGE_PX)) ctx.transition(new Height(this.start, this.end));
    else this.draw(ctx);
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.setDraft(null);
    ctx.transition(new RBoxIdle());
    return true;
  }

  private draw(ctx: ToolContext): void {
    ctx.setDraft({ kind: 'rbox', geometry: rboxFromEdge(this.start, this.end, null) });
  }
}
