import type { ToolId } from '../types.js';
import { BoxIdle } from './box/BoxIdle.js';
import { PanIdle } from './pan/PanIdle.js';
import { PolygonIdle } from './polygon/PolygonIdle.js';
import { RBoxIdle } from './rbox/RBoxIdle.js';
import { SelectIdle } from './select/SelectIdle.js';
import type { ToolState } from './tool.js';

/** Each tool's state machine starts (and ends every gesture) in its idle state. */
export const idleState: Record<ToolId, () => ToolState> = {
  select: () => new SelectIdle(),
  box: () => new BoxIdle(),
  rbox: () => new RBoxIdle(),
  polygon: () => new PolygonIdle(),
  pan: () => new PanIdle(),
};

export { PanGesture } from './pan/panGesture.js';
export type { ToolContext, ToolEvent, ToolState } from './tool.js';
