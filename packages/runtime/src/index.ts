/**
 * @loupe/runtime: run a model exported by the Loupe engine (ONNX, NMS inside the graph) in Node and get the
 * same boxes the engine reports. Pre-processing is the engine's letterbox; post-processing maps boxes back to
 * the original image.
 */
import { readFile } from "node:fs/promises";
import * as ort from "onnxruntime-node";
import { letterbox } from "./letterbox.js";
import { readMetadataProps } from "./onnxMeta.js";

export { letterbox, roundHalfEven } from "./letterbox.js";
export { readMetadataProps } from "./onnxMeta.js";

export type Task = "detect" | "obb";

export interface ModelMeta {
  labels: string[];
  task: Task;
  inputWidth: number;
  inputHeight: number;
  imgsz: number;
  conf: number;
  iou: number;
  maxDet: number;
  version: string;
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

export interface LoupeModel {
  meta: ModelMeta;
  /** rgb: interleaved RGB bytes (width*height*3). conf may only raise the threshold baked into the model. */
  detect(rgb: Uint8Array, width: number, height: number, opts?: { conf?: number }): Promise<Detection[]>;
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
    version: m["version"] as string,
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
  return {
    meta,
    async detect(rgb, width, height, opts = {}) {
      const lb = letterbox(rgb, width, height, meta.inputWidth, meta.inputHeight);
      const input = new ort.Tensor("float32", lb.tensor, [1, 3, meta.inputHeight, meta.inputWidth]);
      const out = await session.run({ images: input });
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
