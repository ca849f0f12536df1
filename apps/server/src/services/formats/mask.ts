/**
 * Bitmap masks as COCO (pycocotools RLE) and CVAT (<mask rle>) write them, and their outlines as polygons:
 * Loupe stores shapes, never bitmaps, so a mask is traced into one polygon per island.
 */

import { Limits } from '@loupe/contracts';
import { breathe } from '../gallery/breathe.js';

/**
 * Tracing runs on the event loop: it gives the loop back every so many steps, so a 100-megapixel mask (up to
 * seconds of work) never holds other requests for more than a few milliseconds at a time.
 */
const STEPS_PER_TURN = 1 << 18;
class Turns {
  private steps = 0;
  /** Count `n` steps; true when the caller should `await breathe()` now. */
  due(n = 1): boolean {
    this.steps += n;
    if (this.steps < STEPS_PER_TURN) return false;
    this.steps = 0;
    return true;
  }
}

/** A mask over this many pixels is refused before anything is allocated: no image Loupe takes is larger. */
export const MASK_PIXELS_MAX = Limits.imageMaxPixels;

/** Why an RLE could not be decoded; the parsers answer it as badField(…, 'rle'). */
export class MaskError extends Error {}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * pycocotools' compressed counts (maskApi.c rleFrString): each count is 5-bit groups, least significant
 * first, offset by 48 ('0'), bit 0x20 meaning "more groups follow" and bit 0x10 of the last group the sign;
 * from the fourth count on, each is stored as the difference to the count two before it.
 */
function countsFromString(s: string, pixels: number): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= s.length) throw new MaskError('truncated counts');
      const c = s.charCodeAt(p) - 48;
      if (c < 0 || c > 63 || k > 6) throw new MaskError('not an RLE string');
      x += (c & 0x1f) * 32 ** k;
      more = (c & 0x20) !== 0;
      p++;
      k++;
      // Sign extension, as C's `x |= -1 << 5*k` does.
      if (!more && c & 0x10) x -= 32 ** k;
    }
    if (counts.length > 2) x += counts[counts.length - 2]!;
    if (x < 0 || counts.length > pixels) throw new MaskError('bad count');
    counts.push(x);
  }
  return counts;
}

function sizeOf(size: unknown): [number, number] {
  if (!Array.isArray(size) || size.length !== 2 || !size.every((v) => isCount(v) && v > 0)) throw new MaskError('size');
  const [h, w] = size as [number, number];
  if (h * w > MASK_PIXELS_MAX) throw new MaskError('too large');
  return [h, w];
}

function countList(counts: unknown, pixels: number): ArrayLike<number> {
  if (typeof counts === 'string') return countsFromString(counts, pixels);
  if (!(Array.isArray(counts) || counts instanceof Float64Array) || counts.length > pixels + 1) throw new MaskError('counts');
  for (let i = 0; i < counts.length; i++) if (!isCount(counts[i])) throw new MaskError('counts');
  return counts as ArrayLike<number>;
}

function checkSum(counts: ArrayLike<number>, pixels: number): void {
  let sum = 0;
  for (let i = 0; i < counts.length; i++) sum += counts[i]!;
  if (sum !== pixels) throw new MaskError('counts do not cover the mask');
}

/**
 * A COCO RLE mask (`{size: [h, w], counts}`, counts compressed as a string or a list of numbers), runs
 * alternating 0s and 1s from 0s, column-major as pycocotools writes them. Returns the mask row-major
 * (index y * w + x), 1 inside. Throws MaskError for a size over MASK_PIXELS_MAX, counts that are not
 * whole numbers or do not sum to h * w.
 */
export function decodeRle(rle: { size: [number, number]; counts: string | ArrayLike<number> }): Uint8Array {
  const [h, w] = sizeOf(rle.size);
  const counts = countList(rle.counts, h * w);
  checkSum(counts, h * w);
  const mask = new Uint8Array(h * w);
  let pos = 0;
  for (let i = 0; i < counts.length; i++) {
    let c = counts[i]!;
    if (i % 2 === 0) {
      pos += c;
      continue;
    }
    while (c > 0) {
      const x = Math.floor(pos / h);
      const y = pos - x * h;
      const n = Math.min(c, h - y);
      for (let j = 0, at = y * w + x; j < n; j++, at += w) mask[at] = 1;
      pos += n;
      c -= n;
    }
  }
  return mask;
}

/** A mask cut to the bounding box of its pixels, placed at (left, top) in the full mask. */
export interface MaskCrop {
  mask: Uint8Array;
  left: number;
  top: number;
  w: number;
  h: number;
}

/**
 * decodeRle, cut to the pixels' bounding box: tracing then costs the object's size, not the image's (a
 * thousand small objects on 20-megapixel images would otherwise scan 20 billion pixels). Null when empty.
 */
export async function decodeRleCrop(rle: { size: [number, number]; counts: string | ArrayLike<number> }): Promise<MaskCrop | null> {
  const [h, w] = sizeOf(rle.size);
  const counts = countList(rle.counts, h * w);
  checkSum(counts, h * w);
  let [x0, x1, y0, y1] = [w, -1, h, -1];
  for (let i = 1, pos = counts[0] ?? 0; i < counts.length; pos += counts[i]!, i++) {
    const c = counts[i]!;
    if (i % 2 === 0 || c === 0) continue;
    const first = Math.floor(pos / h);
    const last = Math.floor((pos + c - 1) / h);
    x0 = Math.min(x0, first);
    x1 = Math.max(x1, last);
    if (first !== last) [y0, y1] = [0, h - 1];
    else [y0, y1] = [Math.min(y0, pos - first * h), Math.max(y1, pos + c - 1 - first * h)];
  }
  if (x1 < 0) return null;
  const cw = x1 - x0 + 1;
  const ch = y1 - y0 + 1;
  const mask = new Uint8Array(cw * ch);
  const turns = new Turns();
  for (let i = 1, pos = counts[0] ?? 0; i < counts.length; pos += counts[i]!, i++) {
    if (i % 2 === 0) continue;
    for (let k = pos, end = pos + counts[i]!; k < end; ) {
      const x = Math.floor(k / h);
      const y = k - x * h;
      const n = Math.min(end - k, h - y);
      for (let j = 0, at = (y - y0) * cw + (x - x0); j < n; j++, at += cw) mask[at] = 1;
      k += n;
      if (turns.due(n)) await breathe();
    }
  }
  return { mask, left: x0, top: y0, w: cw, h: ch };
}

/** CVAT's <mask rle="…">: run lengths from background, row-major over a width × height rectangle. */
export function decodeRowRuns(counts: unknown, w: number, h: number): Uint8Array {
  if (!isCount(w) || !isCount(h) || w === 0 || h === 0 || w * h > MASK_PIXELS_MAX) throw new MaskError('size');
  const list = countList(counts, w * h);
  checkSum(list, w * h);
  const mask = new Uint8Array(w * h);
  let pos = 0;
  for (let i = 0; i < list.length; i++) {
    if (i % 2 === 1) mask.fill(1, pos, pos + list[i]!);
    pos += list[i]!;
  }
  return mask;
}

/** Islands of fewer pixels than this are specks, not objects. */
const MIN_ISLAND = 4;
/** How far (px) a simplified outline may stray from the traced pixel edges. */
const TOLERANCE = 1;

// Directions on the pixel-corner lattice, y down: east, south, west, north (turning right is +1).
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];
// The two pixels ahead of a corner (top-left corner of pixel (x, y) is (x, y)), left then right of the way.
const AHEAD_LEFT = [[0, -1], [0, 0], [-1, 0], [-1, -1]] as const;
const AHEAD_RIGHT = [[0, 0], [-1, 0], [-1, -1], [0, -1]] as const;

/**
 * The outer outline of each 8-connected island of the mask (row-major, 1 inside, 0 outside), in pixel-edge
 * coordinates so that each polygon covers its pixels, simplified (Douglas-Peucker, 1 px, widened only when an
 * outline needs more than maxPoints vertices). Largest island first; islands under 4 px are dropped. Holes are
 * not kept: Loupe's polygons have none, so an island with a hole becomes its outline filled.
 */
export async function maskToPolygons(mask: Uint8Array, w: number, h: number, maxPoints: number): Promise<[number, number][][]> {
  const islands: { area: number; points: [number, number][] }[] = [];
  const on = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && mask[y * w + x] !== 0;
  const turns = new Turns();
  for (let i = 0; i < w * h; i++) {
    if ((i & 0xffff) === 0 && turns.due(0x10000)) await breathe();
    if (mask[i] !== 1) continue;
    // The first pixel met in raster order is its island's top-left: its top edge lies on the outer outline.
    const area = await fill(mask, w, h, i, turns);
    if (area < MIN_ISLAND) continue;
    const outline = await trace(on, i % w, Math.floor(i / w), w, h, turns);
    islands.push({ area, points: simplifyClosed(outline, maxPoints) });
    if (turns.due(outline.length)) await breathe();
  }
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 2) mask[i] = 1;
    if ((i & 0xffff) === 0 && turns.due(0x10000)) await breathe();
  }
  return islands.sort((a, b) => b.area - a.area).map((x) => x.points);
}

/** Marks the 8-connected island holding pixel `start` as 2 (scanline fill) and answers its pixel count. */
async function fill(mask: Uint8Array, w: number, h: number, start: number, turns: Turns): Promise<number> {
  const stack = [start];
  let area = 0;
  while (stack.length) {
    const s = stack.pop()!;
    if (turns.due(8)) await breathe();
    if (mask[s] !== 1) continue;
    const y = Math.floor(s / w);
    let l = s - y * w;
    let r = l;
    while (l > 0 && mask[y * w + l - 1] === 1) l--;
    while (r + 1 < w && mask[y * w + r + 1] === 1) r++;
    mask.fill(2, y * w + l, y * w + r + 1);
    area += r - l + 1;
    const lo = Math.max(0, l - 1);
    const hi = Math.min(w - 1, r + 1);
    for (const ny of [y - 1, y + 1]) {
      if (ny < 0 || ny >= h) continue;
      let inRun = false;
      for (let x = lo; x <= hi; x++) {
        const v = mask[ny * w + x] === 1;
        if (v && !inRun) stack.push(ny * w + x);
        inRun = v;
      }
    }
  }
  return area;
}

/** Walks the island's outer edge with the island on the right, keeping only the corners (flat x, y pairs). */
async function trace(on: (x: number, y: number) => boolean, x0: number, y0: number, w: number, h: number, turns: Turns): Promise<number[]> {
  const pts = [x0, y0];
  let x = x0;
  let y = y0;
  let d = 0;
  const maxSteps = 4 * (w + 1) * (h + 1);
  for (let step = 0; step < maxSteps; step++) {
    if ((step & 0xfff) === 0 && turns.due(0x1000)) await breathe();
    x += DX[d]!;
    y += DY[d]!;
    if (x === x0 && y === y0) break;
    const al = AHEAD_LEFT[d]!;
    const ar = AHEAD_RIGHT[d]!;
    // 8-connectivity: a pixel ahead-left joins the island even when only diagonally touching it.
    const nd = on(x + al[0], y + al[1]) ? (d + 3) % 4 : on(x + ar[0], y + ar[1]) ? d : (d + 1) % 4;
    if (nd !== d) pts.push(x, y);
    d = nd;
  }
  return pts;
}

/** Douglas-Peucker over a closed outline, tolerance widened until it fits maxPoints; never under 3 points. */
function simplifyClosed(flat: number[], maxPoints: number): [number, number][] {
  const n = flat.length / 2;
  const all = (): [number, number][] => Array.from({ length: n }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);
  if (n <= 4) return all();
  // Split the ring at the point farthest from the first, so both halves are open chains.
  let far = 0;
  let best = -1;
  for (let i = 1; i < n; i++) {
    const d = (flat[2 * i]! - flat[0]!) ** 2 + (flat[2 * i + 1]! - flat[1]!) ** 2;
    if (d > best) [best, far] = [d, i];
  }
  for (let tol = TOLERANCE; ; tol *= 1.5) {
    const keep = new Uint8Array(n + 1);
    keep[0] = keep[far] = keep[n] = 1;
    douglasPeucker(flat, n, 0, far, tol, keep);
    douglasPeucker(flat, n, far, n, tol, keep);
    const out: [number, number][] = [];
    for (let i = 0; i < n; i++) if (keep[i]) out.push([flat[2 * i]!, flat[2 * i + 1]!]);
    if (out.length < 3) return widest(flat, n, far);
    if (out.length <= maxPoints) return out;
  }
}

/** A sliver thinner than the tolerance: the triangle of the ends and the point farthest from their chord. */
function widest(flat: number[], n: number, far: number): [number, number][] {
  const [ax, ay, bx, by] = [flat[0]!, flat[1]!, flat[2 * far]!, flat[2 * far + 1]!];
  let best = -1;
  let at = 1;
  for (let i = 1; i < n; i++) {
    const d = Math.abs((bx - ax) * (flat[2 * i + 1]! - ay) - (by - ay) * (flat[2 * i]! - ax));
    if (i !== far && d > best) [best, at] = [d, i];
  }
  const pts = [0, far, at].sort((a, b) => a - b);
  return pts.map((i) => [flat[2 * i]!, flat[2 * i + 1]!] as [number, number]);
}

/** Marks in `keep` the points of chain a..b (index n is point 0 again) that stray more than tol from the chord. */
function douglasPeucker(flat: number[], n: number, a: number, b: number, tol: number, keep: Uint8Array): void {
  const px = (i: number) => flat[2 * (i % n)]!;
  const py = (i: number) => flat[2 * (i % n) + 1]!;
  const stack: [number, number][] = [[a, b]];
  while (stack.length) {
    const [s, e] = stack.pop()!;
    const ax = px(s);
    const ay = py(s);
    const dx = px(e) - ax;
    const dy = py(e) - ay;
    const len = Math.hypot(dx, dy);
    let worst = -1;
    let at = -1;
    for (let i = s + 1; i < e; i++) {
      const d = len > 0 ? Math.abs(dx * (py(i) - ay) - dy * (px(i) - ax)) / len : Math.hypot(px(i) - ax, py(i) - ay);
      if (d > worst) [worst, at] = [d, i];
    }
    if (at >= 0 && worst > tol) {
      keep[at] = 1;
      stack.push([s, at], [at, e]);
    }
  }
}
