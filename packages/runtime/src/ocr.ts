/**
 * OCR with a Loupe OCR export: X.onnx finds the text lines (rotated boxes, NMS inside the graph, like an obb
 * model) and X-rec.onnx reads them. Every box is cut out and rectified exactly as the engine does
 * (engine/loupe_engine/ocr/crop.py: reading direction, context margins, 32 px high, bilinear, padded right), the
 * recognizer gives per-step probabilities and a greedy CTC decode turns them into text
 * (engine/loupe_engine/ocr/text.py `greedy_decode`). A line then takes the class its text fits (relabel(), the
 * engine's ocr/formats.py).
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as ort from "onnxruntime-node";
import { letterbox, roundHalfEven } from "./letterbox.js";
import { readMetadataProps } from "./onnxMeta.js";
import { parseMeta, rboxCorners, type Detection, type LoadOptions, type ModelMeta } from "./index.js";

export interface RecognizerMeta {
  /** charset[k - 1] is class k; class `blank` (0) is the CTC blank. */
  charset: string[];
  blank: number;
  inputWidth: number;
  inputHeight: number;
  /** Context above and below a box, as a share of its height. */
  margin: number;
  /** Context before and after it, as a share of its height. */
  marginX: number;
  /** Value (0..1) of the columns right of the text. */
  padValue: number;
  /** A box at least this many times longer than high reads along its long side. */
  lineAspect: number;
}

export interface TextLine extends Detection {
  text: string;
  /** Mean probability of the characters read (of every step when nothing was read). */
  textScore: number;
}

export interface OcrModel {
  meta: ModelMeta;
  recognizer: RecognizerMeta;
  /** Per class, the formats of its training texts (digits written as 9), the most frequent first; see relabel(). */
  textFormats: string[][];
  /** rgb: interleaved RGB bytes (width*height*3). conf may only raise the threshold baked into the detector. */
  ocr(rgb: Uint8Array, width: number, height: number, opts?: { conf?: number }): Promise<TextLine[]>;
  close(): Promise<void>;
}

/** cx, cy, w, h, angle (degrees) of the same rectangle with w along the reading direction. */
export function canonicalBox(cx: number, cy: number, w: number, h: number, angle: number, lineAspect = 2.0): [number, number, number, number, number] {
  let a = angle;
  if (Math.max(w, h) >= lineAspect * Math.min(w, h)) {
    if (h > w) [w, h, a] = [h, w, a + 90.0];
    a -= 180.0 * Math.ceil((a - 90.0) / 180.0);
  } else {
    const k = Math.ceil((a - 45.0) / 90.0);
    a -= 90.0 * k;
    if (Math.abs(k) % 2 === 1) [w, h] = [h, w];
  }
  return [cx, cy, w, h, a];
}

/**
 * The rectified crop of a canonical box: Float32Array [3, inputHeight, inputWidth], RGB 0..1. Same arithmetic,
 * in the same order, as the engine's `rectify` (float64, then float32).
 */
export function rectify(rgb: Uint8Array, width: number, height: number, box: [number, number, number, number, number], rec: RecognizerMeta): Float32Array {
  const [cx, cy, w, h, ang] = box;
  const H = rec.inputHeight;
  const RW = rec.inputWidth;
  const m = rec.margin * h;
  const mx = rec.marginX * h;
  const natural = (H * (w + 2 * mx)) / Math.max(h + 2 * m, 1e-6);
  const cw = Math.min(RW, Math.max(1, roundHalfEven(natural)));
  const t = ang * (Math.PI / 180);
  const c = Math.cos(t);
  const s = Math.sin(t);
  const plane = H * RW;
  const out = new Float32Array(3 * plane).fill(rec.padValue);
  for (let y = 0; y < H; y++) {
    const v = ((y + 0.5) / H - 0.5) * (h + 2 * m);
    for (let x = 0; x < cw; x++) {
      const u = ((x + 0.5) / cw - 0.5) * (w + 2 * mx);
      const fx = Math.min(Math.max(cx + u * c - v * s - 0.5, 0), width - 1);
      const fy = Math.min(Math.max(cy + u * s + v * c - 0.5, 0), height - 1);
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const x1 = Math.min(x0 + 1, width - 1);
      const y1 = Math.min(y0 + 1, height - 1);
      const wx = fx - x0;
      const wy = fy - y0;
      for (let k = 0; k < 3; k++) {
        const top = rgb[(y0 * width + x0) * 3 + k]! * (1 - wx) + rgb[(y0 * width + x1) * 3 + k]! * wx;
        const bot = rgb[(y1 * width + x0) * 3 + k]! * (1 - wx) + rgb[(y1 * width + x1) * 3 + k]! * wx;
        out[k * plane + y * RW + x] = (top * (1 - wy) + bot * wy) / 255;
      }
    }
  }
  return out;
}

/** Greedy CTC decode of probs [T, C] (best class per step, repeats collapsed, blanks dropped). */
export function greedyDecode(probs: Float32Array, steps: number, classes: number, charset: string[], blank = 0): { text: string; score: number } {
  let prev = blank;
  let text = "";
  const scores: number[] = [];
  let sumTop = 0;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let top = probs[t * classes]!;
    for (let k = 1; k < classes; k++) {
      const p = probs[t * classes + k]!;
      if (p > top) [best, top] = [k, p];
    }
    sumTop += top;
    if (best !== prev && best !== blank) {
      text += charset[best - 1] ?? "";
      scores.push(top);
    }
    prev = best;
  }
  const score = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : steps ? sumTop / steps : 0;
  return { text, score };
}

/** The text with each ASCII digit written as 9. */
export function textFormat(text: string): string {
  return text.replace(/[0-9]/g, "9");
}

const isLetter = (ch: string): boolean => /^\p{L}$/u.test(ch);

/** Edit distance of two formats, by code point: adding or dropping a character costs 1, swapping it 1, or 0.5 between two letters. */
export function formatDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    for (let j = 1; j <= y.length; j++) {
      const swap = x[i - 1] === y[j - 1] ? 0 : isLetter(x[i - 1]!) && isLetter(y[j - 1]!) ? 0.5 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + swap));
    }
    prev = cur;
  }
  return prev[y.length]!;
}

/**
 * The class of a line read as `text` that the detector gave class `cls` (engine/loupe_engine/ocr/formats.py): the
 * class whose nearest format is at least one whole edit nearer than `cls`'s nearest (the nearest such, the lowest
 * index on a tie), else `cls`. A class without formats neither takes nor gives lines; two classes of one format
 * never move a line.
 */
export function relabel(text: string, cls: number, classFormats: string[][]): number {
  if (!text || cls >= classFormats.length || !classFormats[cls]!.length) return cls;
  const f = textFormat(text);
  const near = classFormats.map((ps) => Math.min(Infinity, ...ps.map((p) => formatDistance(f, p))));
  let best = 0;
  near.forEach((d, c) => {
    if (d < near[best]!) best = c;
  });
  return near[best]! + 1 <= near[cls]! ? best : cls;
}

export function parseRecognizerMeta(props: Record<string, string>): RecognizerMeta {
  const raw = props["loupe"];
  if (!raw) throw new Error("not a Loupe recognizer: the ONNX file has no 'loupe' metadata");
  const m = JSON.parse(raw) as Record<string, unknown>;
  if (m["task"] !== "ocr-recognizer") throw new Error(`not a Loupe OCR recognizer (task ${String(m["task"])})`);
  return {
    charset: m["charset"] as string[],
    blank: (m["blank"] as number | undefined) ?? 0,
    inputWidth: m["input_width"] as number,
    inputHeight: m["input_height"] as number,
    margin: m["margin"] as number,
    marginX: (m["margin_x"] as number | undefined) ?? (m["margin"] as number),
    padValue: m["pad_value"] as number,
    lineAspect: (m["line_aspect"] as number | undefined) ?? 2.0,
  };
}

/** Load X.onnx (the text detector) and the recognizer next to it (X-rec.onnx, named in its metadata). */
export async function loadOcrModel(path: string, opts: LoadOptions = {}): Promise<OcrModel> {
  const detBytes = new Uint8Array(await readFile(path));
  const meta = parseMeta(readMetadataProps(detBytes));
  if ((meta.task as string) !== "ocr") throw new Error(`this is a ${meta.task} model, not an OCR model; use loadModel()`);
  const detMeta = JSON.parse(readMetadataProps(detBytes)["loupe"]!) as { recognizer?: string; text_formats?: string[][] };
  const recName = detMeta.recognizer ?? path.replace(/\.onnx$/, "") + "-rec.onnx";
  const textFormats = detMeta.text_formats ?? [];
  const recBytes = new Uint8Array(await readFile(join(dirname(path), recName)));
  const recognizer = parseRecognizerMeta(readMetadataProps(recBytes));
  const providers = opts.executionProviders ? { executionProviders: opts.executionProviders } : {};
  const det = await ort.InferenceSession.create(detBytes, { graphOptimizationLevel: "all", ...providers });
  const rec = await ort.InferenceSession.create(recBytes, { graphOptimizationLevel: "all", ...providers });
  return {
    meta,
    recognizer,
    textFormats,
    async ocr(rgb, width, height, o = {}) {
      const lb = letterbox(rgb, width, height, meta.inputWidth, meta.inputHeight);
      const out = await det.run({ images: new ort.Tensor("float32", lb.tensor, [1, 3, meta.inputHeight, meta.inputWidth]) });
      const data = out["detections"]?.data as Float32Array | undefined;
      if (!data) throw new Error("model has no 'detections' output (exported with --no-nms?)");
      const lines: Detection[] = [];
      for (let k = 0; k * 7 < data.length; k++) {
        const r = data.subarray(k * 7, (k + 1) * 7);
        if (r[5]! < (o.conf ?? 0)) continue;
        const classId = Math.round(r[6]!);
        const cx = (r[0]! - lb.padX) / lb.ratio;
        const cy = (r[1]! - lb.padY) / lb.ratio;
        const w = r[2]! / lb.ratio;
        const h = r[3]! / lb.ratio;
        const polygon = rboxCorners(cx, cy, w, h, r[4]!);
        const xs = polygon.map((p) => p[0]);
        const ys = polygon.map((p) => p[1]);
        lines.push({
          box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
          score: r[5]!, classId, label: meta.labels[classId] ?? String(classId), polygon,
          rbox: { cx, cy, w, h, angle: (r[4]! * 180) / Math.PI },
        });
      }
      if (!lines.length) return [];
      const { inputHeight: RH, inputWidth: RW } = recognizer;
      const batch = new Float32Array(lines.length * 3 * RH * RW);
      lines.forEach((d, i) => {
        const b = d.rbox!;
        batch.set(rectify(rgb, width, height, canonicalBox(b.cx, b.cy, b.w, b.h, b.angle, recognizer.lineAspect), recognizer), i * 3 * RH * RW);
      });
      const res = await rec.run({ images: new ort.Tensor("float32", batch, [lines.length, 3, RH, RW]) });
      const probs = res["probs"];
      if (!probs) throw new Error("recognizer has no 'probs' output");
      const [, steps, classes] = probs.dims as number[];
      const all = probs.data as Float32Array;
      return lines.map((d, i) => {
        const { text, score } = greedyDecode(all.subarray(i * steps! * classes!, (i + 1) * steps! * classes!), steps!, classes!, recognizer.charset, recognizer.blank);
        const classId = relabel(text, d.classId, textFormats);
        const label = classId === d.classId ? d.label : (meta.labels[classId] ?? String(classId));
        return { ...d, classId, label, text, textScore: score };
      });
    },
    async close() {
      await det.release();
      await rec.release();
    },
  };
}
