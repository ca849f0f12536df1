import type { PathSink } from './geometryPath';
import type { ColorPaths } from './pathCache';

const MOVE = 0;
const LINE = 1;
const CLOSE = 2;
const RECT = 3;

/**
 * A path kept as numbers (op, coordinates…) in a Float32Array, so the same shapes can be drawn on the page and
 * posted to the raster worker without building them twice: the array is copied to the worker in one piece,
 * and each side builds its Path2D once, when it first draws. Float32 holds image coordinates to 1/4000 px at
 * 16,000 px, far below a device pixel.
 */
export class PathRecorder implements PathSink {
  private buf: Float32Array;
  private n = 0;
  private built: Path2D | null = null;

  constructor(data?: Float32Array) {
    this.buf = data ?? new Float32Array(256);
    if (data) this.n = data.length;
  }

  moveTo(x: number, y: number): void {
    this.push(MOVE, x, y);
  }

  lineTo(x: number, y: number): void {
    this.push(LINE, x, y);
  }

  closePath(): void {
    this.reserve(1);
    this.buf[this.n++] = CLOSE;
  }

  rect(x: number, y: number, w: number, h: number): void {
    this.reserve(5);
    this.buf.set([RECT, x, y, w, h], this.n);
    this.n += 5;
  }

  /** The recorded numbers (a view, not a copy). */
  data(): Float32Array {
    return this.buf.subarray(0, this.n);
  }

  toPath2D(): Path2D {
    if (this.built) return this.built;
    const p = new Path2D();
    const d = this.buf;
    for (let i = 0; i < this.n; ) {
      const op = d[i]!;
      if (op === MOVE) p.moveTo(d[i + 1]!, d[i + 2]!);
      else if (op === LINE) p.lineTo(d[i + 1]!, d[i + 2]!);
      else if (op === RECT) p.rect(d[i + 1]!, d[i + 2]!, d[i + 3]!, d[i + 4]!);
      else p.closePath();
      i += op === CLOSE ? 1 : op === RECT ? 5 : 3;
    }
    this.built = p;
    return p;
  }

  private push(op: number, x: number, y: number): void {
    this.reserve(3);
    const d = this.buf;
    d[this.n] = op;
    d[this.n + 1] = x;
    d[this.n + 2] = y;
    this.n += 3;
  }

  private reserve(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = new Float32Array(Math.max(this.buf.length * 2, this.n + k));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
}

/** Colour paths as plain data for postMessage: colours and one copied Float32Array each. */
export interface EncodedPaths {
  readonly colors: string[];
  readonly data: Float32Array[];
}

export function encodePaths(paths: ColorPaths<PathRecorder>): EncodedPaths {
  const colors: string[] = [];
  const data: Float32Array[] = [];
  for (const [color, path] of paths.byColor) {
    colors.push(color);
    data.push(path.data().slice());
  }
  return { colors, data };
}

/** The worker's side: text tags are drawn by the page, so they are not sent. */
export function decodePaths(encoded: EncodedPaths): ColorPaths<PathRecorder> {
  const byColor = new Map<string, PathRecorder>();
  encoded.colors.forEach((color, i) => byColor.set(color, new PathRecorder(encoded.data[i]!)));
  return { byColor, texts: [] };
}
