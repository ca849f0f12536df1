import type { RBoxGeometry } from '@loupe/contracts';
import { clampToImage } from '../../geometry/clamp.js';
import { normalizeDegrees, toDegrees } from '../../geometry/point.js';
import type { Degrees, ImagePoint, Radians } from '../../types.js';
import { findShape, replaceShape, type ToolContext, type ToolEvent } from '../tool.js';
import { ShapeEdit } from './ShapeEdit.js';

/** Shift snaps the angle to multiples of this. */
const SNAP_DEGREES = 15;

/** Turns a rotated box about its centre by the angle the pointer sweeps around that centre. */
export class Rotating extends ShapeEdit {
  readonly name = 'rotating';
  private original: RBoxGeometry | null = null;

  constructor(
    shapeId: string,
    private readonly from: ImagePoint,
  ) {
    super(shapeId);
  }

  override onEnter(ctx: ToolContext): void {
    super.onEnter(ctx);
    const g = findShape(this.before, this.shapeId)?.geometry;
    this.original = g?.kind === 'rbox' ? g : null;
  }

  onPointerMove(ctx: ToolContext, e: ToolEvent): void {
    const r = this.original;
    if (!r) return;
    const sweep = (p: ImagePoint) => Math.atan2(p.y - r.cy, p.x - r.cx) as Radians;
    let angle: number = r.angle + toDegrees((sweep(e.point) - sweep(this.from)) as Radians);
    if (e.input.shift) angle = Math.round(angle / SNAP_DEGREES) * SNAP_DEGREES;
    const rotated = { ...r, angle: normalizeDegrees(angle) as Degrees };
    ctx.preview(replaceShape(this.before, this.shapeId, clampToImage(rotated, ctx.state.image)));
  }
}
