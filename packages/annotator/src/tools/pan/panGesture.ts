import { panBy } from '../../geometry/viewport.js';
import type { ScreenPoint, Viewport } from '../../types.js';

/**
 * A pan drag measured from where it started, so rounding never accumulates. Shared by the pan tool and by the
 * Space / middle-button pan that works in every tool.
 */
export class PanGesture {
  constructor(
    private readonly from: ScreenPoint,
    private readonly start: Viewport,
  ) {}

  viewportAt(p: ScreenPoint, current: Viewport): Viewport {
    // The canvas may be resized mid-drag: keep its size, move only the offset.
    return { ...panBy(this.start, p.x - this.from.x, p.y - this.from.y), width: current.width, height: current.height };
  }
}
