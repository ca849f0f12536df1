import type { Geometry } from '@loupe/contracts';
import { outlineOf } from '../formats/types.js';

type Point = readonly [number, number];

/**
 * A shape as pixels: per image row, the sorted, disjoint runs [start, end) of pixel columns it covers. A pixel
 * (covering [j, j+1) × [i, i+1)) belongs to the shape when its centre lies inside or on the outline: the engine
 * rasterizes labels by centres (engine/README.md Segmentation), and its predicted outlines run through the
 * centres of the boundary pixels, which a strict inside test would drop.
 */
export interface Mask {
  top: number;
  rows: number[][];
  area: number;
}

/** How far from the outline a centre still counts as on it (px). */
const EPS = 1e-3;


/** x of every edge crossing the horizontal line y (half-open in y, so a vertex counts once), sorted. */
function crossings(points: readonly Point[], y: number): number[] {
  const xs: number[] = [];
  for (let k = 0; k < points.length; k++) {
    const [x0, y0] = points[k]!;
    const [x1, y1] = points[(k + 1) % points.length]!;
    if ((y0 <= y && y < y1) || (y1 <= y && y < y0)) xs.push(x0 + ((y - y0) * (x1 - x0)) / (y1 - y0));
  }
  return xs.sort((a, b) => a - b);
}

/** Pixel columns whose centre lies in [xa, xb] (with EPS), as a run [start, end). */
function columns(xa: number, xb: number, width: number): [number, number] | null {
  const start = Math.max(0, Math.ceil(xa - EPS - 0.5));
  const end = Math.min(width, Math.floor(xb + EPS - 0.5) + 1);
  return end > start ? [start, end] : null;
}

function union(runs: [number, number][]): number[] {
  runs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [s, e] of runs) {
    if (out.length > 0 && s <= out[out.length - 1]!) out[out.length - 1] = Math.max(out[out.length - 1]!, e);
    else out.push(s, e);
  }
  return out;
}

/** The shape's pixels inside a width × height image (even-odd rule, so a polygon's holes stay empty). */
export function rasterize(g: Geometry, width: number, height: number): Mask {
  const points = outlineOf(g);
  const ys = points.map((p) => p[1]);
  const top = Math.max(0, Math.floor(Math.min(...ys) - 0.5));
  const bottom = Math.min(height - 1, Math.ceil(Math.max(...ys) - 0.5));
  const rows: number[][] = [];
  let area = 0;
  for (let i = top; i <= bottom; i++) {
    // Two lines just above and below the centre line: an outline edge lying on it (the top or bottom row
    // of a predicted region) still crosses one of them.
    const runs: [number, number][] = [];
    for (const y of [i + 0.5 - EPS, i + 0.5 + EPS]) {
      const xs = crossings(points, y);
      for (let k = 0; k + 1 < xs.length; k += 2) {
        const run = columns(xs[k]!, xs[k + 1]!, width);
        if (run) runs.push(run);
      }
    }
    const row = union(runs);
    for (let k = 0; k < row.length; k += 2) area += row[k + 1]! - row[k]!;
    rows.push(row);
  }
  return { top, rows, area };
}

/** Pixels in both masks. */
function overlap(a: Mask, b: Mask): number {
  let n = 0;
  const from = Math.max(a.top, b.top);
  const to = Math.min(a.top + a.rows.length, b.top + b.rows.length);
  for (let i = from; i < to; i++) {
    const ra = a.rows[i - a.top]!;
    const rb = b.rows[i - b.top]!;
    let p = 0;
    let q = 0;
    while (p < ra.length && q < rb.length) {
      n += Math.max(0, Math.min(ra[p + 1]!, rb[q + 1]!) - Math.max(ra[p]!, rb[q]!));
      if (ra[p + 1]! < rb[q + 1]!) p += 2;
      else q += 2;
    }
  }
  return n;
}

/** Intersection over union of two masks' pixels. */
export function maskIou(a: Mask, b: Mask): number {
  const inter = overlap(a, b);
  const uni = a.area + b.area - inter;
  return uni > 0 ? inter / uni : 0;
}
