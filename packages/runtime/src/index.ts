/**
 * @loupe/runtime: run a model exported by the Loupe engine (ONNX) in Node and get what the engine reports:
 * boxes (detect, obb: NMS inside the graph), classes (classify: probabilities inside the graph) or a class map
 * with its objects (segment). Pre-processing is the engine's letterbox for every task; post-processing maps
 * the results back to the original image.
 */
import { readFile } from "node:fs/promises";
import * as ort from "onnxruntime-node";
import { letterbox, roundHalfEven } from "./letterbox.js";
import { readMetadataProps } from "./onnxMeta.js";
import { classInstances, resizePlane, type SegmentInstance } from "./instances.js";

export type { SegmentInstance } from "./instances.js";
export { letterbox, roundHalfEven } from "./letterbox.js";
export { readMetadataProps } from "./onnxMeta.js";

export type Task = "detect" | "obb" | "classify" | "segment";

export interface ModelMeta {
  labels: string[];
  task: Task;
  inputWidth: number;
  inputHeight: number;
  imgsz: number;
  conf: number;
  iou: number;
  maxDet: number;
  /** Test-time augmentation inside the graph: off, hflip, flips or dihedral (1, 2, 4 or 8 views averaged). */
  tta: string;
  version: string;
  /** classify: one sigmoid per class (several classes per image) instead of a softmax. */
  multiLabel: boolean;
  /** segment: one class per pixel (softmax with background) instead of an independent mask per class. */
  overlapMask: boolean;
}

export interface Detection {
  /** axis-aligned box in original-image pixels (for rotated boxes: the box around the polygon) */
  box: [number, number, number, number];
  score: number;
  classId: number;
  label: string;
  /** rotated boxes only: centre, size and angle in degrees (positive turns clockwise on screen) */
  rbox?: { cx: number; cy: number; w: number; h: number; angle: number };
  polygon?: [number, number][];
}

export interface Classification {
  classId: number;
  label: string;
  /** The class's probability. */
  score: number;
}

export interface Segmentation {
  width: number;
  height: number;
  /**
   * Per pixel of the original image (row-major): 0 = background, else classId + 1. Without overlap_mask a
   * pixel may belong to several classes; the map holds the most probable of them.
   */
  classMap: Uint16Array;
  /** Connected regions of one class, most confident first. */
  instances: SegmentInstance[];
}

export interface LoupeModel {
  meta: ModelMeta;
  /**
   * detect, obb. rgb: interleaved RGB bytes (width*height*3). conf may only raise the threshold baked into the
   * model.
   */
  detect(rgb: Uint8Array, width: number, height: number, opts?: { conf?: number }): Promise<Detection[]>;
  /**
   * classify: every class by probability, highest first; multi-label models only the classes whose
   * probability reaches conf (default: the model's).
   */
  classify(rgb: Uint8Array, width: number, height: number, opts?: { conf?: number }): Promise<Classification[]>;
  /** segment: the class of every pixel and the objects; conf only applies to models without overlap_mask. */
  segment(rgb: Uint8Array, width: number, height: number, opts?: { conf?: number }): Promise<Segmentation>;
  close(): Promise<void>;
}

export function parseMeta(props: Record<string, string>): ModelMeta {
  const raw = props["loupe"];
  if (!raw) throw new Error("not a Loupe model: the ONNX file has no 'loupe' metadata");
  const m = JSON.parse(raw) as Record<string, unknown>;
  return {
    labels: m["labels"] as string[],
    task: m["task"] as Task,
    inputWidth: m["input_width"] as number,
    inputHeight: m["input_height"] as number,
    imgsz: m["imgsz"] as number,
    conf: m["conf"] as number,
    iou: m["iou"] as number,
    maxDet: m["max_det"] as number,
    tta: typeof m["tta"] === "string" ? m["tta"] : "off",
    version: m["version"] as string,
    multiLabel: m["multi_label"] === true,
    overlapMask: m["overlap_mask"] !== false,
  };
}

export function rboxCorners(cx: number, cy: number, w: number, h: number, theta: number): [number, number][] {
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const dx = [-w / 2, w / 2, w / 2, -w / 2];
  const dy = [-h / 2, -h / 2, h / 2, h / 2];
  return dx.map((x, i) => [cx + x * c - dy[i]! * s, cy + x * s + dy[i]! * c] as [number, number]);
}

export interface LoadOptions {
  /**
   * onnxruntime execution providers in order of preference, e.g. ["cuda", "cpu"] for the SDK's GPU types.
   * Creating the session throws when one is not installed (the CUDA provider needs onnxruntime-node's CUDA
   * binaries); the caller decides whether to fall back to ["cpu"].
   */
  executionProviders?: string[];
}

export async function loadModel(path: string, opts: LoadOptions = {}): Promise<LoupeModel> {
  const bytes = new Uint8Array(await readFile(path));
  const meta = parseMeta(readMetadataProps(bytes));
  const providers = opts.executionProviders ? { executionProviders: opts.executionProviders } : {};
  const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: "all", ...providers });
  const rotated = meta.task === "obb";
  const expect = (...tasks: Task[]) => {
    if (!tasks.includes(meta.task)) throw new Error(`this is a ${meta.task} model; use ${meta.task === "classify" ? "classify" : meta.task === "segment" ? "segment" : "detect"}()`);
  };
  const infer = async (rgb: Uint8Array, width: number, height: number) => {
    const lb = letterbox(rgb, width, height, meta.inputWidth, meta.inputHeight);
    const input = new ort.Tensor("float32", lb.tensor, [1, 3, meta.inputHeight, meta.inputWidth]);
    return { lb, out: await session.run({ images: input }) };
  };
  return {
    meta,
    async classify(rgb, width, height, opts = {}) {
      expect("classify");
      const { out } = await infer(rgb, width, height);
      const probs = out["probs"]?.data as Float32Array | undefined;
      if (!probs) throw new Error("model has no 'probs' output");
      const all = [...probs].map((score, classId) => ({ classId, label: meta.labels[classId] ?? String(classId), score }));
      const conf = opts.conf ?? meta.conf;
      return all.filter((c) => !meta.multiLabel || c.score >= conf).sort((a, b) => b.score - a.score);
    },
    async segment(rgb, width, height, opts = {}) {
      expect("segment");
      const { lb, out } = await infer(rgb, width, height);
      const probs = out["probs"]?.data as Float32Array | undefined;
      if (!probs) throw new Error("model has no 'probs' output");
      return segmentation(probs, meta, lb, width, height, opts.conf ?? meta.conf);
    },
    async detect(rgb, width, height, opts = {}) {
      expect("detect", "obb");
      const { lb, out } = await infer(rgb, width, height);
      const det = out["detections"];
      if (!det) throw new Error("model has no 'detections' output");
      const data = det.data as Float32Array;
      const cols = rotated ? 7 : 6;
      const minConf = opts.conf ?? 0;
      const res: Detection[] = [];
      for (let k = 0; k * cols < data.length; k++) {
        const r = data.subarray(k * cols, (k + 1) * cols);
        const score = r[cols - 2]!;
        if (score < minConf) continue;
        const classId = Math.round(r[cols - 1]!);
        const label = meta.labels[classId] ?? String(classId);
        if (!rotated) {
          const box: [number, number, number, number] = [
            (r[0]! - lb.padX) / lb.ratio, (r[1]! - lb.padY) / lb.ratio,
            (r[2]! - lb.padX) / lb.ratio, (r[3]! - lb.padY) / lb.ratio,
          ];
          res.push({ box, score, classId, label });
          continue;
        }
        const cx = (r[0]! - lb.padX) / lb.ratio;
        const cy = (r[1]! - lb.padY) / lb.ratio;
        const w = r[2]! / lb.ratio;
        const h = r[3]! / lb.ratio;
        const polygon = rboxCorners(cx, cy, w, h, r[4]!);
        const xs = polygon.map((p) => p[0]);
        const ys = polygon.map((p) => p[1]);
        res.push({
          box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
          score, classId, label, polygon,
          rbox: { cx, cy, w, h, angle: (r[4]! * 180) / Math.PI },
        });
      }
      return res;
    },
    async close() {
      await session.release();
    },
  };
}

/**
 * The engine's segment post-processing (engine/README.md Segmentation, Instances): the probabilities of the
 * image area (letterbox padding cut off) resized to the original image, each pixel's class, and each class's
 * 8-connected components; components under 2 model pixels are dropped.
 */
function segmentation(probs: Float32Array, meta: ModelMeta, lb: { ratio: number; padX: number; padY: number }, width: number, height: number, conf: number): Segmentation {
  const { inputWidth: iw, inputHeight: ih, overlapMask } = meta;
  const plane = iw * ih;
  const channels = probs.length / plane;
  const h = roundHalfEven(height * lb.ratio);
  const w = roundHalfEven(width * lb.ratio);
  const planes = Array.from({ length: channels }, (_, c) => resizePlane(probs.subarray(c * plane, (c + 1) * plane), iw, lb.padX, lb.padY, w, h, width, height));
  const n = width * height;
  const classMap = new Uint16Array(n);
  // overlap_mask: channel 0 is background and class c is channel c + 1; otherwise class c is channel c.
  const first = overlapMask ? 1 : 0;
  for (let p = 0; p < n; p++) {
    let best = overlapMask ? 0 : -1;
    let top = overlapMask ? planes[0]![p]! : conf;
    for (let c = first; c < channels; c++) {
      const v = planes[c]![p]!;
      // Strictly greater: argmax keeps the first of equal probabilities, as numpy does.
      if (v > top || (!overlapMask && v === top && best < 0)) [best, top] = [c, v];
    }
    classMap[p] = overlapMask ? best : best + 1;
  }
  const minArea = Math.max(1, roundHalfEven(2 / lb.ratio ** 2));
  const instances: SegmentInstance[] = [];
  for (let c = first; c < channels; c++) {
    const classId = c - first;
    const mask = new Uint8Array(n);
    let any = false;
    for (let p = 0; p < n; p++) {
      if (overlapMask ? classMap[p] === c : planes[c]![p]! >= conf) {
        mask[p] = 1;
        any = true;
      }
    }
    if (any) instances.push(...classInstances(mask, planes[c]!, width, height, classId, meta.labels[classId] ?? String(classId), minArea));
  }
  instances.sort((a, b) => b.score - a.score);
  return { width, height, classMap, instances };
}

export { loadOcrModel, canonicalBox, rectify, greedyDecode, parseRecognizerMeta, relabel, textFormat, formatDistance } from "./ocr.js";
export type { OcrModel, RecognizerMeta, TextLine } from "./ocr.js";
export { MEASURE_FIELDS, measureRbox, measureDetection, measurePolygon, measureMask, measureInstance, toMillimetres, inRange, judgeImage, describeFailure } from "./measure.js";
export type { MeasureField, ObjectMeasure, Range, MeasureTolerances, MeasureFailure, MeasureVerdict } from "./measure.js";
