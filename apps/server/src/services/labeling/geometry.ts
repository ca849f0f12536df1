import { LabelingLimits, type Geometry } from '@loupe/contracts';

export interface ImageSize {
  width: number;
  height: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const finite = (...xs: number[]) => xs.every(Number.isFinite);
/** Only present keys survive: stored JSON and the identical-set comparison then see one spelling of a shape. */
const withText = (text: string | undefined) => (text === undefined ? {} : { text });

/** Area in image px² (polygons by the shoelace formula, so a self-crossing one counts its net area). */
export function area(g: Geometry): number {
  if (g.kind === 'box') return Math.abs(g.x2 - g.x1) * Math.abs(g.y2 - g.y1);
  if (g.kind === 'rbox') return g.w * g.h;
  let twice = 0;
  g.points.forEach(([x, y], i) => {
    const [nx, ny] = g.points[(i + 1) % g.points.length]!;
    twice += x * ny - nx * y;
  });
  return Math.abs(twice) / 2;
}

/**
 * The shape as it is stored: checked, then clamped into the image ([0,width]×[0,height], pixel edges).
 * null when it is unusable: a number that is not finite, a rotated box without size or whose centre lies
 * outside the image, a polygon with fewer than 3 distinct points or more than the limit, OCR text over the
 * limit. Area is the caller's check (zero area after clamping means the shape was outside the image).
 *
 * Box corners are clamped and put in order (x1 ≤ x2, y1 ≤ y2). Polygon points are clamped one by one.
 * A rotated box keeps its centre and angle and shrinks, keeping its aspect ratio, until all four corners are
 * inside: moving the centre would move the object the box marks.
 */
export function fitToImage(g: Geometry, size: ImageSize): Geometry | null {
  if (g.text !== undefined && g.text.length > LabelingLimits.ocrTextMax) return null;
  const { width: W, height: H } = size;
  if (g.kind === 'box') {
    if (!finite(g.x1, g.y1, g.x2, g.y2)) return null;
    const [x1, x2] = [clamp(Math.min(g.x1, g.x2), 0, W), clamp(Math.max(g.x1, g.x2), 0, W)];
    const [y1, y2] = [clamp(Math.min(g.y1, g.y2), 0, H), clamp(Math.max(g.y1, g.y2), 0, H)];
    return { kind: 'box', x1, y1, x2, y2, ...withText(g.text) };
  }
  if (g.kind === 'rbox') {
    if (!finite(g.cx, g.cy, g.w, g.h, g.angle) || g.w <= 0 || g.h <= 0) return null;
    if (g.cx < 0 || g.cx > W || g.cy < 0 || g.cy > H) return null;
    const t = (g.angle * Math.PI) / 180;
    const [cos, sin] = [Math.abs(Math.cos(t)), Math.abs(Math.sin(t))];
    // Half the width and height of the rotated box's axis-aligned bounds.
    const ex = (g.w * cos + g.h * sin) / 2;
    const ey = (g.w * sin + g.h * cos) / 2;
    const s = Math.min(1, Math.min(g.cx, W - g.cx) / ex, Math.min(g.cy, H - g.cy) / ey);
    return { kind: 'rbox', cx: g.cx, cy: g.cy, w: g.w * s, h: g.h * s, angle: g.angle, ...withText(g.text) };
  }
  if (g.points.length > LabelingLimits.polygonPointsMax) return null;
  if (!g.points.every(([x, y]) => finite(x, y))) return null;
  if (new Set(g.points.map(([x, y]) => `${x},${y}`)).size < 3) return null;
  const points = g.points.map(([x, y]) => [clamp(x, 0, W), clamp(y, 0, H)] as [number, number]);
  return { kind: 'polygon', points, ...withText(g.text) };
}

/** One spelling per shape (keys sorted), so two sets can be compared as strings. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
