/**
 * From a segmenter's per-pixel probabilities to objects, as the engine does it (engine/loupe_engine/segment/
 * instances.py): the probabilities of the image area are resized bilinearly to the original image, each pixel
 * takes its class (argmax with background, or every class whose probability reaches conf), each class splits
 * into 8-connected components, and each component gets its class's mean probability, box, area and outline.
 */

/** One object: a connected region of one class, in original-image pixels. */
export interface SegmentInstance {
  classId: number;
  label: string;
  /** Mean probability of the class over the region's pixels. */
  score: number;
  /** x, y, w, h of the pixels it covers. */
  bbox: [number, number, number, number];
  /** Pixels. */
  area: number;
  /** Outer outline through the centres of its boundary pixels (holes not kept); empty below 3 points. */
  polygon: [number, number][];
  /** Its pixels within bbox (row-major, bbox w × h, 1 = in): what measureInstance() measures, as the engine does. */
  mask: Uint8Array;
}

/**
 * Bilinear resize of one float plane with half-pixel centres and clamped edges (OpenCV INTER_LINEAR), from the
 * w × h window at (left, top) of a plane `stride` wide to nw × nh.
 */
export function resizePlane(src: Float32Array, stride: number, left: number, top: number, w: number, h: number, nw: number, nh: number): Float32Array {
  const out = new Float32Array(nw * nh);
  const sx = w / nw;
  const sy = h / nh;
  const xs = new Int32Array(nw * 2);
  const wx = new Float32Array(nw);
  for (let x = 0; x < nw; x++) {
    let fx = (x + 0.5) * sx - 0.5;
    let x0 = Math.floor(fx);
    fx -= x0;
    if (x0 < 0) [x0, fx] = [0, 0];
    if (x0 >= w - 1) [x0, fx] = [w - 1, 0];
    xs[2 * x] = x0;
    xs[2 * x + 1] = Math.min(x0 + 1, w - 1);
    wx[x] = fx;
  }
  for (let y = 0; y < nh; y++) {
    let fy = (y + 0.5) * sy - 0.5;
    let y0 = Math.floor(fy);
    fy -= y0;
    if (y0 < 0) [y0, fy] = [0, 0];
    if (y0 >= h - 1) [y0, fy] = [h - 1, 0];
    const r0 = (top + y0) * stride + left;
    const r1 = (top + Math.min(y0 + 1, h - 1)) * stride + left;
    for (let x = 0; x < nw; x++) {
      const a = src[r0 + xs[2 * x]!]! * (1 - wx[x]!) + src[r0 + xs[2 * x + 1]!]! * wx[x]!;
      const b = src[r1 + xs[2 * x]!]! * (1 - wx[x]!) + src[r1 + xs[2 * x + 1]!]! * wx[x]!;
      out[y * nw + x] = a * (1 - fy) + b * fy;
    }
  }
  return out;
}

// 8 neighbours clockwise on screen (y down), starting east.
const DX = [1, 1, 0, -1, -1, -1, 0, 1];
const DY = [0, 1, 1, 1, 0, -1, -1, -1];

/**
 * Moore-neighbour tracing of the outer boundary of the component `id` in `labels`, from its first pixel in
 * raster order; corners only where the direction changes (OpenCV's CHAIN_APPROX_SIMPLE); pixel centres.
 */
function outline(labels: Int32Array, width: number, height: number, id: number, sx: number, sy: number): [number, number][] {
  const inside = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < height && labels[y * width + x] === id;
  const path: [number, number][] = [[sx, sy]];
  // The first pixel's west neighbour is outside: start the clockwise search just after it.
  let from = 4;
  let [x, y] = [sx, sy];
  let second: [number, number] | null = null;
  for (let guard = 0; guard < 4 * width * height + 8; guard++) {
    let found = -1;
    for (let k = 1; k <= 8; k++) {
      const d = (from + k) % 8;
      if (inside(x + DX[d]!, y + DY[d]!)) {
        found = d;
        break;
      }
    }
    if (found < 0) break; // a single pixel
    const nx = x + DX[found]!;
    const ny = y + DY[found]!;
    // Jacob's stop: back at the start about to repeat the first step.
    if (x === sx && y === sy && second && nx === second[0] && ny === second[1]) break;
    if (!second) second = [nx, ny];
    // The neighbour checked just before the one found is outside; seen from the new pixel it is where the
    // next search starts.
    const bx = x + DX[(found + 7) % 8]! - nx;
    const by = y + DY[(found + 7) % 8]! - ny;
    from = DX.findIndex((dx, i) => dx === bx && DY[i] === by);
    [x, y] = [nx, ny];
    path.push([x, y]);
  }
  if (path.length > 1 && path.at(-1)![0] === sx && path.at(-1)![1] === sy) path.pop();
  // Keep the corners: drop a point whose incoming and outgoing steps have the same direction.
  const n = path.length;
  const corners = path.filter((p, i) => {
    const a = path[(i + n - 1) % n]!;
    const b = path[(i + 1) % n]!;
    return n < 3 || p[0] - a[0] !== b[0] - p[0] || p[1] - a[1] !== b[1] - p[1];
  });
  // The trace runs clockwise on screen; OpenCV's outer contours run the other way from the same first pixel.
  const ccw = [corners[0]!, ...corners.slice(1).reverse()];
  return corners.length >= 3 ? ccw.map(([px, py]) => [px + 0.5, py + 0.5]) : [];
}

/** 8-connected components of `mask` (1 = in); labels 1..n, 0 = out. */
function components(mask: Uint8Array, width: number, height: number): { labels: Int32Array; count: number } {
  const labels = new Int32Array(width * height);
  const stack: number[] = [];
  let count = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || labels[start]) continue;
    labels[start] = ++count;
    stack.push(start);
    while (stack.length > 0) {
      const p = stack.pop()!;
      const px = p % width;
      const py = (p - px) / width;
      for (let d = 0; d < 8; d++) {
        const qx = px + DX[d]!;
        const qy = py + DY[d]!;
        if (qx < 0 || qy < 0 || qx >= width || qy >= height) continue;
        const q = qy * width + qx;
        if (mask[q] && !labels[q]) {
          labels[q] = count;
          stack.push(q);
        }
      }
    }
  }
  return { labels, count };
}

/** The objects of class `classId` (mask: its pixels, plane: its probabilities), components under minArea dropped. */
export function classInstances(mask: Uint8Array, plane: Float32Array, width: number, height: number, classId: number, label: string, minArea: number): SegmentInstance[] {
  const { labels, count } = components(mask, width, height);
  const stats = Array.from({ length: count + 1 }, () => ({ x0: width, y0: height, x1: -1, y1: -1, area: 0, sum: 0, sx: -1, sy: -1 }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const id = labels[y * width + x]!;
      if (!id) continue;
      const s = stats[id]!;
      if (s.sx < 0) [s.sx, s.sy] = [x, y];
      s.x0 = Math.min(s.x0, x);
      s.y0 = Math.min(s.y0, y);
      s.x1 = Math.max(s.x1, x);
      s.y1 = Math.max(s.y1, y);
      s.area++;
      s.sum += plane[y * width + x]!;
    }
  }
  const out: SegmentInstance[] = [];
  for (let id = 1; id <= count; id++) {
    const s = stats[id]!;
    if (s.area < minArea) continue;
    const bw = s.x1 - s.x0 + 1;
    const bh = s.y1 - s.y0 + 1;
    const crop = new Uint8Array(bw * bh);
    for (let y = 0; y < bh; y++) for (let x = 0; x < bw; x++) crop[y * bw + x] = labels[(s.y0 + y) * width + s.x0 + x] === id ? 1 : 0;
    out.push({
      classId,
      label,
      score: s.sum / s.area,
      bbox: [s.x0, s.y0, s.x1 - s.x0 + 1, s.y1 - s.y0 + 1],
      area: s.area,
      polygon: outline(labels, width, height, id, s.sx, s.sy),
      mask: crop,
    });
  }
  return out;
}
