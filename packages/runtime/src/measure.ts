/**
 * Measurement of MEASURE models (SPEC §3 fields; issue 7 item 3), with the engine's definitions
 * (engine/loupe_engine/measure/fields.py, engine/README.md "Measurement"): continuous image pixels (pixel (i, j)
 * covers [j, j+1) × [i, i+1)); major/minor axis = long/short side of the minimum-area enclosing rectangle;
 * angle = that long side's direction in degrees [0, 180) from +x towards +y; area in px (pixel count for masks).
 * An optional scale (mm per pixel) turns lengths and centroids into mm and the area into mm²; angles stay.
 * Tolerances judge an image OK or NG as contracts' judgeImage does (labels by name here: the SDK has no ids).
 */
import type { Detection } from "./index.js";
import type { SegmentInstance } from "./instances.js";

export const MEASURE_FIELDS = ["area", "major_axis", "minor_axis", "angle", "centroid_x", "centroid_y"] as const;
export type MeasureField = (typeof MEASURE_FIELDS)[number];
export type ObjectMeasure = Record<MeasureField, number>;

type Pt = [number, number];

function out(area: number, major: number, minor: number, angle: number, cx: number, cy: number, scale?: number | null): ObjectMeasure {
  const s = scale ?? 1;
  return { area: area * s * s, major_axis: major * s, minor_axis: minor * s, angle, centroid_x: cx * s, centroid_y: cy * s };
}

const mod180 = (a: number) => {
  const v = ((a % 180) + 180) % 180;
  return v >= 180 - 1e-9 ? 0 : v;
};

/** Fields of a rotated box (angle in degrees, positive turns clockwise on screen): the engine's measure_rbox. */
export function measureRbox(cx: number, cy: number, w: number, h: number, angleDeg: number, scale?: number | null): ObjectMeasure {
  return out(w * h, Math.max(w, h), Math.min(w, h), mod180(w >= h ? angleDeg : angleDeg + 90), cx, cy, scale);
}

/** Fields of a detection: its rotated box (obb), or its axis-aligned box at angle 0 (detect), as the engine's `measure`. */
export function measureDetection(d: Pick<Detection, "box" | "rbox">, scale?: number | null): ObjectMeasure {
  if (d.rbox) return measureRbox(d.rbox.cx, d.rbox.cy, d.rbox.w, d.rbox.h, d.rbox.angle, scale);
  const [x1, y1, x2, y2] = d.box;
  return measureRbox((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1, 0, scale);
}

/** Convex hull (Andrew's monotone chain), counter-clockwise in y-up terms, no collinear points. */
function hull(points: Pt[]): Pt[] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Pt[] = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower.at(-2)!, lower.at(-1)!, q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper: Pt[] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i]!;
    while (upper.length >= 2 && cross(upper.at(-2)!, upper.at(-1)!, q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/**
 * The minimum-area rectangle (cv2.minAreaRect): one side lies on a hull edge. Returns the direction `u` the
 * engine takes as box[1] − box[0] (OpenCV's boxPoints: the side at (θ + 90)° for its θ in (0, 90], i.e. 0° for an
 * axis-aligned rectangle, else in (90°, 180°)), the perpendicular `v`, and the side lengths along them.
 */
function minAreaRect(points: Pt[]): { u: Pt; v: Pt; lu: number; lv: number } {
  const h = hull(points);
  let best: { alpha: number; area: number } | null = null;
  const dirs = new Set<number>();
  if (h.length < 2) dirs.add(0);
  for (let i = 0; i < h.length; i++) {
    const a = h[i]!;
    const b = h[(i + 1) % h.length]!;
    if (a[0] === b[0] && a[1] === b[1]) continue;
    // Direction of the edge reduced to [0, 90): the rectangle is the same for α and α + 90.
    let alpha = (Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI;
    alpha = ((alpha % 90) + 90) % 90;
    if (alpha > 90 - 1e-9) alpha = 0;
    dirs.add(alpha);
  }
  const span = (p: Pt[], u: Pt) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const q of p) {
      const t = q[0] * u[0] + q[1] * u[1];
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
    return hi - lo;
  };
  // OpenCV's calipers rotate from the axes and keep the last of equal areas (`area <= minarea`): among
  // rectangles of the same area (a disc's mirror images, a right triangle) the one turned furthest wins.
  for (const alpha of [...dirs].sort((x, y) => x - y)) {
    const r = (alpha * Math.PI) / 180;
    const area = span(h, [Math.cos(r), Math.sin(r)]) * span(h, [-Math.sin(r), Math.cos(r)]);
    if (best === null) best = { alpha, area };
    else if (area <= best.area * (1 + 1e-9) + 1e-9) best = { alpha, area: Math.min(area, best.area) };
  }
  const alpha = best!.alpha;
  const ua = alpha === 0 ? 0 : alpha + 90;
  const r = (ua * Math.PI) / 180;
  const u: Pt = alpha === 0 ? [1, 0] : [Math.cos(r), Math.sin(r)];
  const v: Pt = [-u[1], u[0]];
  return { u, v, lu: span(h, u), lv: span(h, v) };
}

const dirAngle = (u: Pt) => mod180((Math.atan2(u[1], u[0]) * 180) / Math.PI);

/** Fields of a polygon (parts of [x, y] points in continuous pixels): the engine's measure_polygon. */
export function measurePolygon(parts: Pt[][], scale?: number | null): ObjectMeasure {
  let area = 0;
  let sx = 0;
  let sy = 0;
  for (const p of parts) {
    let a2 = 0;
    let ax = 0;
    let ay = 0;
    for (let i = 0; i < p.length; i++) {
      const [x, y] = p[i]!;
      const [x1, y1] = p[(i + 1) % p.length]!;
      const c = x * y1 - x1 * y;
      a2 += c;
      ax += (x + x1) * c;
      ay += (y + y1) * c;
    }
    const a = a2 / 2;
    area += Math.abs(a);
    if (a) {
      sx += (ax / 6) * Math.sign(a);
      sy += (ay / 6) * Math.sign(a);
    }
  }
  const all = parts.flat();
  const [cx, cy] = area ? [sx / area, sy / area] : [all.reduce((s, q) => s + q[0], 0) / all.length, all.reduce((s, q) => s + q[1], 0) / all.length];
  const { u, v, lu, lv } = minAreaRect(all);
  return out(area, Math.max(lu, lv), Math.min(lu, lv), dirAngle(lu >= lv ? u : v), cx, cy, scale);
}

/**
 * The engine's `_extent`: spread of the boundary pixel centres along unit direction u plus, at each end, the
 * expected gap to the true edge, c / (k + 1) for k distinct offsets among the centres within one lattice step c.
 */
function extent(pts: Pt[], u: Pt): number {
  const proj = pts.map((p) => p[0] * u[0] + p[1] * u[1]);
  const c = Math.max(Math.abs(u[0]), Math.abs(u[1]));
  const hi = Math.max(...proj);
  const lo = Math.min(...proj);
  let length = hi - lo;
  for (const gaps of [proj.map((t) => hi - t), proj.map((t) => t - lo)]) {
    const near = new Set(gaps.filter((g) => g < c - 1e-6).map((g) => Math.round(g * 1000)));
    length += c / (near.size + 1);
  }
  return length;
}

/**
 * Fields of a binary mask (row-major w × h, 1 = in) whose top-left pixel sits at `offset` of the image: the
 * engine's measure_mask. Pixel count, mean of pixel centres, and the min-area rectangle of the centres of the
 * outer boundary pixels (those touching the outside through a 4-neighbour, as cv2.findContours' external
 * contour with 8-connectivity visits them) grown by `extent`. Null when empty.
 */
export function measureMask(mask: Uint8Array, w: number, h: number, offset: [number, number] = [0, 0], scale?: number | null): ObjectMeasure | null {
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (mask[y * w + x]) {
        n++;
        sx += x;
        sy += y;
      }
    }
  }
  if (n === 0) return null;
  // Outside: the 4-connected background reached from a one-pixel frame around the mask.
  const W = w + 2;
  const H = h + 2;
  const outside = new Uint8Array(W * H);
  const inMask = (x: number, y: number) => x >= 1 && y >= 1 && x <= w && y <= h && mask[(y - 1) * w + x - 1] === 1;
  const stack = [0];
  outside[0] = 1;
  while (stack.length) {
    const p = stack.pop()!;
    const px = p % W;
    const py = (p - px) / W;
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      const qx = px + dx;
      const qy = py + dy;
      if (qx < 0 || qy < 0 || qx >= W || qy >= H) continue;
      const q = qy * W + qx;
      if (!outside[q] && !inMask(qx, qy)) {
        outside[q] = 1;
        stack.push(q);
      }
    }
  }
  const pts: Pt[] = [];
  for (let y = 1; y <= h; y++) {
    for (let x = 1; x <= w; x++) {
      if (inMask(x, y) && (outside[y * W + x - 1] || outside[y * W + x + 1] || outside[(y - 1) * W + x] || outside[(y + 1) * W + x])) pts.push([x - 1, y - 1]);
    }
  }
  const { u, v } = minAreaRect(pts);
  const eu = extent(pts, u);
  const ev = extent(pts, v);
  // Equal extents (a disc, an axis-aligned square) keep u, as the engine's stable sort does; they are equal in
  // its float64 sums, and may differ in the last bits of ours.
  const [major, minor, dir] = eu >= ev - 1e-9 * Math.max(eu, 1) ? [eu, ev, u] : [ev, eu, v];
  return out(n, major, minor, dirAngle(dir), sx / n + 0.5 + offset[0], sy / n + 0.5 + offset[1], scale);
}

/** Fields of a segmenter's object (segment(): its mask within its box), as the engine measures predicted masks. */
export function measureInstance(inst: Pick<SegmentInstance, "mask" | "bbox">, scale?: number | null): ObjectMeasure {
  const [x, y, w, h] = inst.bbox;
  return measureMask(inst.mask, w, h, [x, y], scale)!;
}

/** A pixel measurement in millimetres (lengths × s, area × s², angle unchanged). */
export function toMillimetres(m: ObjectMeasure, mmPerPx: number): ObjectMeasure {
  return out(m.area, m.major_axis, m.minor_axis, m.angle, m.centroid_x, m.centroid_y, mmPerPx);
}

// ---------------------------------------------------------------------------------------------------------
// Tolerances

/** Either bound may be left out (null). For the angle, min > max wraps around 180° (170 to 10). */
export interface Range {
  min?: number | null;
  max?: number | null;
}

/**
 * The platform's tolerances (contracts Tolerances) with labels by name: `unit` is what the values compare in
 * ('mm' needs mmPerPx), `count` bounds the objects of an image, each label its count and its objects' fields.
 */
export interface MeasureTolerances {
  unit: "px" | "mm";
  count?: Range | null;
  labels: { label: string; count?: Range | null; fields: Partial<Record<MeasureField, Range>> }[];
}

export interface MeasureFailure {
  kind: "field" | "count";
  /** The object's label, the counted label, or null for the image's total count. */
  label: string | null;
  index: number | null;
  field: MeasureField | null;
  value: number;
  range: Range;
}

export interface MeasureVerdict {
  ok: boolean;
  failures: MeasureFailure[];
  /** Per object: the fields out of tolerance. */
  failed: MeasureField[][];
  counts: Record<string, number>;
}

/** The engine's `inside` (tolerance.py): bounds inclusive within 1e-9; an angle range with min > max wraps. */
export function inRange(value: number, r: Range | null | undefined, angle = false): boolean {
  if (!r) return true;
  const lo = r.min ?? null;
  const hi = r.max ?? null;
  if (angle && lo !== null && hi !== null && lo > hi) return value >= lo || value <= hi;
  return (lo === null || value >= lo - 1e-9) && (hi === null || value <= hi + 1e-9);
}

/** OK/NG of one image: `objects` with their label and their values in the tolerances' unit (contracts' judgeImage). */
export function judgeImage(objects: readonly { label: string; values: ObjectMeasure }[], t: MeasureTolerances): MeasureVerdict {
  const byLabel = new Map(t.labels.map((l) => [l.label, l]));
  const failures: MeasureFailure[] = [];
  const counts: Record<string, number> = {};
  const failed = objects.map((o, index) => {
    counts[o.label] = (counts[o.label] ?? 0) + 1;
    const fields = byLabel.get(o.label)?.fields ?? {};
    const bad: MeasureField[] = [];
    for (const f of MEASURE_FIELDS) {
      const r = fields[f];
      if (r && !inRange(o.values[f], r, f === "angle")) {
        bad.push(f);
        failures.push({ kind: "field", label: o.label, index, field: f, value: o.values[f], range: r });
      }
    }
    return bad;
  });
  if (t.count && !inRange(objects.length, t.count)) failures.push({ kind: "count", label: null, index: null, field: null, value: objects.length, range: t.count });
  for (const l of t.labels) {
    const n = counts[l.label] ?? 0;
    if (l.count && !inRange(n, l.count)) failures.push({ kind: "count", label: l.label, index: null, field: null, value: n, range: l.count });
  }
  return { ok: failures.length === 0, failures, failed, counts };
}

/** A failure in words: "part #2: major_axis 10.31 outside 9.9..10.1" or "count 3 outside 1..2". */
export function describeFailure(f: MeasureFailure): string {
  const r = `${f.range.min ?? "…"}..${f.range.max ?? "…"}`;
  const v = Number.isInteger(f.value) ? String(f.value) : f.value.toFixed(3);
  if (f.kind === "field") return `${f.label} #${f.index}: ${f.field} ${v} outside ${r}`;
  return `${f.label === null ? "count" : `${f.label} count`} ${v} outside ${r}`;
}
