import { LabelingLimits } from '@loupe/contracts';
import { distance, toPair } from '../../geometry/point.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { PolygonIdle } from './PolygonIdle.js';

/**
 * Click to add vertices; close by clicking the first vertex, double-clicking or Enter. A press on the last
 * vertex adds nothing, so the two presses of a double-click leave one vertex, not two.
 */
export class PolygonDrawing implements ToolState {
  readonly name = 'drawing';
  readonly unfinished = true;
  private cursor: ImagePoint | null = null;

  constructor(private points: readonly ImagePoint[]) {}

  onEnter(ctx: ToolContext): void {
    this.draw(ctx);
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    this.cursor = ctx.clamp(e.point);
    this.draw(ctx);
  }

  onPointerDown(ctx: ToolContext, e: ToolEvent): void {
    const p = ctx.clamp(e.point);
    this.cursor = p;
    if (this.nearFirst(ctx, p)) {
      this.close(ctx);
      return;
    }
    const last = this.points[this.points.length - 1];
    if (last && distance(last, p) <= ctx.tolerance()) return;
    if (this.points.length >= LabelingLimits.polygonPointsMax) return;
    this.points = [...this.points, p];
    this.draw(ctx);
  }

  onDoubleClick(ctx: ToolContext): void {
    this.close(ctx);
  }

  onComplete(ctx: ToolContext): boolean {
    return this.close(ctx);
  }

  onDeleteLast(ctx: ToolContext): boolean {
    this.points = this.points.slice(0, -1);
    if (this.points.length === 0) return this.onCancel(ctx);
    this.draw(ctx);
    return true;
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.setDraft(null);
    ctx.transition(new PolygonIdle());
    return true;
  }

  private nearFirst(ctx: ToolContext, p: ImagePoint | null): boolean {
    const first = this.points[0];
    return this.points.length >= 3 && !!first && !!p && distance(first, p) <= ctx.tolerance();
  }

  /** Fewer than 3 points is not a polygon yet: closing is refused and drawing goes on. */
  private close(ctx: ToolContext): boolean {
    if (this.points.length < 3) return false;
    ctx.setDraft(null);
    ctx.transition(new PolygonIdle());
    ctx.addDrawn({ kind: 'polygon', points: this.points.map(toPair) });
    return true;
  }

  private draw(ctx: ToolContext): void {
    ctx.setDraft({ kind: 'polygon', points: this.points, cursor: this.cursor, closable: this.nearFirst(ctx, this.cursor) });
  }
}
