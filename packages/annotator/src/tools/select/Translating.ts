import { clampShift } from '../../geometry/clamp.js';
import { bounds, translate, unionBounds, type Bounds } from '../../geometry/shape.js';
import type { Snapshot } from '../../history.js';
import type { ImagePoint } from '../../types.js';
import type { ToolContext, ToolEvent, ToolState } from '../tool.js';
import { SelectIdle } from './SelectIdle.js';

/** Moves the selection. Shift locks the move to the dominant axis. */
export class Translating implements ToolState {
  readonly name = 'translating';
  private before: Snapshot = [];
  private ids: ReadonlySet<string> = new Set();
  private extent: Bounds | null = null;

  constructor(private readonly from: ImagePoint) {}

  onEnter(ctx: ToolContext): void {
    this.before = ctx.mark();
    this.ids = ctx.state.selectedIds;
    // The selection moves as one block, so the block (not each shape) stops at the image border.
    const moving = this.before.filter((s) => this.ids.has(s.id));
    this.extent = moving.length > 0 ? unionBounds(moving.map((s) => bounds(s.geometry))) : null;
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    if (!this.extent) return;
    let dx = e.point.x - this.from.x;
    let dy = e.point.y - this.from.y;
    if (e.input.shift) {
      if (Math.abs(dx) > Math.abs(dy)) dy = 0;
      else dx = 0;
    }
    [dx, dy] = clampShift(this.extent, dx, dy, ctx.state.image);
    if (dx === 0 && dy === 0) ctx.preview(this.before);
    else ctx.preview(this.before.map((s) => (this.ids.has(s.id) ? { ...s, geometry: translate(s.geometry, dx, dy) } : s)));
  }

  onPointerUp(ctx: ToolContext): void {
    ctx.commit(this.before);
    ctx.transition(new SelectIdle());
  }

  onCancel(ctx: ToolContext): boolean {
    ctx.restore(this.before);
    ctx.transition(new SelectIdle());
    return true;
  }
}
