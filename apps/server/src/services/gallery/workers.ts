import os from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A small pool of worker threads for the CPU-heavy parts of an upload that no native library does for us:
 * BMP decoding (sharp cannot read BMP), XML parsing (fast-xml-parser is JavaScript and parses a few MB/s)
 * and JSON parsing (8 MB of numbers took 350 ms on a busy machine).
 * On the event loop either froze every other request for seconds (issue 30, item 4); here a task only costs
 * the main thread the (small) message that goes in and out.
 *
 * The worker's code is a self-contained script run with `eval: true`, so it works the same from the
 * TypeScript sources (tests) and from the compiled build, with no file to copy next to the modules.
 */

export interface BmpTask {
  kind: 'bmp';
  file: string;
  width: number;
  height: number;
  bpp: number;
  topDown: boolean;
  offset: number;
  stride: number;
  /** Palette entries (BGRA, 4 bytes each); empty for 24/32-bit. */
  palette: Uint8Array;
  /** The sample's long side: the thumbnail is drawn from it, so the full image is never held in memory. */
  target: number;
}

export interface BmpResult {
  width: number;
  height: number;
  rgb: Uint8Array;
}

export interface ParseTask {
  kind: 'xml' | 'json';
  data: Uint8Array;
  maxDepth: number;
  profile?: 'voc' | 'cvat';
}

export type ParseResult = { doc: unknown } | { error: 'deep' | 'invalid' };

export class WorkerTaskError extends Error {}

const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let XMLParser = null;

function bmp(t) {
  const scale = Math.min(1, t.target / Math.max(t.width, t.height));
  const outW = Math.max(1, Math.round(t.width * scale));
  const outH = Math.max(1, Math.round(t.height * scale));
  const rgb = new Uint8Array(outW * outH * 3);
  const colors = t.palette.length / 4;
  // Palette indices past the palette's end make the file corrupt; a full palette cannot be overrun.
  const checkIndices = t.bpp <= 8 && colors < (1 << t.bpp);
  const mask = (1 << t.bpp) - 1;
  // Source row (image order, top first) of each sampled output row; rows are distinct because scale <= 1.
  const sampled = new Map();
  for (let oy = 0; oy < outH; oy++) sampled.set(Math.min(t.height - 1, Math.floor(((oy + 0.5) * t.height) / outH)), oy);
  const xs = new Int32Array(outW);
  for (let ox = 0; ox < outW; ox++) xs[ox] = Math.min(t.width - 1, Math.floor(((ox + 0.5) * t.width) / outW));
  const fd = fs.openSync(t.file, 'r');
  try {
    const rowsPerChunk = Math.max(1, Math.floor((4 << 20) / t.stride));
    const chunk = Buffer.allocUnsafe(rowsPerChunk * t.stride);
    for (let r0 = 0; r0 < t.height; r0 += rowsPerChunk) {
      const rows = Math.min(rowsPerChunk, t.height - r0);
      // Without indices to check, only the sampled rows are read at all.
      let any = checkIndices;
      for (let r = r0; r < r0 + rows && !any; r++) any = sampled.has(t.topDown ? r : t.height - 1 - r);
      if (!any) continue;
      const want = rows * t.stride;
      let got = 0;
      while (got < want) {
        const n = fs.readSync(fd, chunk, got, want - got, t.offset + r0 * t.stride + got);
        if (n === 0) return { error: 'truncated BMP' };
        got += n;
      }
      for (let i = 0; i < rows; i++) {
        const r = r0 + i;
        const y = t.topDown ? r : t.height - 1 - r;
        const row = i * t.stride;
        if (checkIndices) {
          for (let x = 0; x < t.width; x++) {
            const bit = x * t.bpp;
            if (((chunk[row + (bit >> 3)] >> (8 - t.bpp - (bit & 7))) & mask) >= colors) return { error: 'palette index out of range' };
          }
        }
        const oy = sampled.get(y);
        if (oy === undefined) continue;
        let o = oy * outW * 3;
        for (let ox = 0; ox < outW; ox++, o += 3) {
          const x = xs[ox];
          if (t.bpp >= 24) {
            const p = row + x * (t.bpp / 8);
            rgb[o] = chunk[p + 2];
            rgb[o + 1] = chunk[p + 1];
            rgb[o + 2] = chunk[p];
          } else {
            const bit = x * t.bpp;
            const pe = ((chunk[row + (bit >> 3)] >> (8 - t.bpp - (bit & 7))) & mask) * 4;
            if (pe + 3 > t.palette.length) return { error: 'palette index out of range' };
            rgb[o] = t.palette[pe + 2];
            rgb[o + 1] = t.palette[pe + 1];
            rgb[o + 2] = t.palette[pe];
          }
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return { result: { width: outW, height: outH, rgb }, transfer: [rgb.buffer] };
}

// Two XML dialects: VOC keeps every value as text (a class named "007" or "1e3" stays a name; numbers are
// read where numbers are expected) and object/pt always lists; CVAT keeps attributes (its values live
// there) and makes every repeatable element a list.
const CVAT_LISTS = new Set(['image', 'box', 'polygon', 'polyline', 'points', 'ellipse', 'mask', 'tag', 'attribute', 'label', 'cuboid', 'skeleton', 'track', 'task']);
function xml(t) {
  if (!XMLParser) XMLParser = require(workerData.fxp).XMLParser;
  const cvat = t.profile === 'cvat';
  const parser = new XMLParser({
    ignoreAttributes: !cvat,
    attributeNamePrefix: '',
    processEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    maxNestedTags: t.maxDepth,
    isArray: cvat ? (name, _path, _leaf, attribute) => !attribute && CVAT_LISTS.has(name) : (name) => name === 'object' || name === 'pt',
  });
  try {
    return { result: { doc: parser.parse(withoutBom(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('utf8'))) } };
  } catch (e) {
    return { result: { error: /nested/i.test(String(e && e.message)) ? 'deep' : 'invalid' } };
  }
}

// Windows tools (and some exporters) start UTF-8 files with a byte-order mark, which JSON.parse refuses.
function withoutBom(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

class TooDeep extends Error {}

// Long arrays of numbers (COCO polygons) travel back as Float64Arrays: copying one costs the main thread a
// memcpy, where a cloned array of a million numbers costs as much as parsing it there.
function compact(v, depth, maxDepth, transfer) {
  if (depth > maxDepth) throw new TooDeep();
  if (Array.isArray(v)) {
    if (v.length >= 16 && v.every((x) => typeof x === 'number')) {
      const f = new Float64Array(v);
      transfer.push(f.buffer);
      return f;
    }
    for (let i = 0; i < v.length; i++) v[i] = compact(v[i], depth + 1, maxDepth, transfer);
    return v;
  }
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = compact(v[k], depth + 1, maxDepth, transfer);
  }
  return v;
}

function json(t) {
  let doc;
  try {
    doc = JSON.parse(withoutBom(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('utf8')));
  } catch {
    return { result: { error: 'invalid' } };
  }
  const transfer = [];
  try {
    doc = compact(doc, 0, t.maxDepth, transfer);
  } catch (e) {
    if (e instanceof TooDeep) return { result: { error: 'deep' } };
    throw e;
  }
  return { result: { doc }, transfer };
}

parentPort.on('message', (t) => {
  let out;
  try {
    out = t.kind === 'bmp' ? bmp(t) : t.kind === 'json' ? json(t) : xml(t);
  } catch (e) {
    out = { error: String((e && e.message) || e) };
  }
  parentPort.postMessage(out, out.transfer || []);
});
`;

interface Job {
  task: BmpTask | ParseTask;
  transfer: ArrayBuffer[];
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** A task that runs longer than this is stopped (the worker is replaced) and its file refused. */
const TASK_TIMEOUT_MS = 60_000;

class Pool {
  private idle: Worker[] = [];
  private running = 0;
  private queue: Job[] = [];
  private readonly fxp = createRequire(import.meta.url).resolve('fast-xml-parser');

  constructor(private readonly size: number) {}

  run(task: BmpTask | ParseTask, transfer: ArrayBuffer[] = []): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, transfer, resolve, reject });
      this.next();
    });
  }

  private spawn(): Worker {
    // The heap limit bounds what one parse can take; Buffers (the BMP rows) are outside it and bounded by chunking.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { fxp: this.fxp }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
    // An idle worker that fails (it should not) is dropped, never left to throw an unhandled 'error'.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      this.idle = this.idle.filter((w) => w !== worker);
    });
    return worker;
  }

  private next(): void {
    while (this.queue.length > 0 && (this.idle.length > 0 || this.running < this.size)) {
      const job = this.queue.shift()!;
      const worker = this.idle.pop() ?? this.spawn();
      this.running += 1;
      this.start(worker, job);
    }
  }

  private start(worker: Worker, job: Job): void {
    worker.ref();
    let done = false;
    const onMessage = (out: { result?: unknown; error?: string }) => {
      if (done) return;
      finish(true);
      if (out.error !== undefined) job.reject(new WorkerTaskError(out.error));
      else job.resolve(out.result);
    };
    const broke = (e: unknown) => {
      if (done) return;
      finish(false);
      job.reject(new WorkerTaskError(e instanceof Error ? e.message : `worker exited (${String(e)})`));
    };
    const finish = (keep: boolean) => {
      done = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', broke);
      worker.off('exit', broke);
      this.running -= 1;
      if (keep) {
        worker.unref();
        this.idle.push(worker);
      } else {
        void worker.terminate();
      }
      this.next();
    };
    const timer = setTimeout(() => {
      if (done) return;
      finish(false);
      job.reject(new WorkerTaskError('took too long'));
    }, TASK_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.on('error', broke);
    worker.on('exit', broke);
    worker.postMessage(job.task, job.transfer);
  }
}

let pool: Pool | null = null;
const shared = () => (pool ??= new Pool(Math.max(1, Math.min(4, os.availableParallelism() - 1))));

/** A sample of the BMP's pixels, at most `target` px on the long side; throws WorkerTaskError for a corrupt file. */
export const sampleBmp = (task: Omit<BmpTask, 'kind'>) => shared().run({ kind: 'bmp', ...task }) as Promise<BmpResult>;

/**
 * The XML parsed by fast-xml-parser, or why it could not be. `voc`: element text only, every value a string,
 * `object` and `pt` always lists. `cvat`: attributes kept (no prefix), values strings, repeatable elements
 * (image, box, polygon, tag, attribute, label…) always lists.
 */
export const parseXml = (data: Uint8Array, maxDepth: number, profile: 'voc' | 'cvat' = 'voc') => shared().run({ kind: 'xml', data, maxDepth, profile }) as Promise<ParseResult>;

/**
 * The JSON parsed on a worker, or why it could not be: nested deeper than maxDepth, or not JSON. Arrays of
 * 16 or more numbers come back as Float64Arrays (see isNumberList in formats/types.ts).
 */
export const parseJson = (data: Uint8Array, maxDepth: number) => shared().run({ kind: 'json', data, maxDepth }) as Promise<ParseResult>;
