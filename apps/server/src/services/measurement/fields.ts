import type { ObjectMeasure, TrainingTask } from '@loupe/contracts';
import type { EngineResult } from '../testing/outcomes.js';

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * The engine's measure_rbox (engine/loupe_engine/measure/fields.py), in pixels, rounded to 3 digits like the
 * engine's `rounded`: a rotated box is its own minimum-area rectangle, so its sides are the axes, w·h the area,
 * the centre the centroid, and the long side's direction (angle° clockwise, +90° when h is the long side) the
 * major-axis angle in [0, 180).
 */
export function measureRbox(cx: number, cy: number, w: number, h: number, angleDeg: number): ObjectMeasure {
  let angle = ((((w >= h ? angleDeg : angleDeg + 90) % 180) + 180) % 180);
  if (angle >= 180 - 1e-9) angle = 0;
  return { area: r3(w * h), major_axis: r3(Math.max(w, h)), minor_axis: r3(Math.min(w, h)), angle: r3(angle), centroid_x: r3(cx), centroid_y: r3(cy) };
}

/**
 * The measurement of one engine test result, in pixels: a segment instance carries the engine's own (computed
 * from its mask, which its outline polygon cannot reproduce); a rotated box is measured here by the engine's
 * definition. Other tasks measure nothing.
 */
export function measureOf(r: EngineResult & { measure?: ObjectMeasure }, task: TrainingTask): ObjectMeasure | undefined {
  if (task === 'segment' && r.measure) return r.measure;
  if (task === 'obb' && r.rbox && r.rbox.length === 5) {
    const [cx, cy, w, h, angle] = r.rbox as [number, number, number, number, number];
    return measureRbox(cx, cy, w, h, angle);
  }
  return undefined;
}
