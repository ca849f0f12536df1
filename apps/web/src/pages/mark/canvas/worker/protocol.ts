import type { RasterPlan, Size } from '../layers/rasterPlan';
import type { EncodedPaths } from '../pathRecorder';

/** What the scene worker draws: sent once per content (new shapes, image, filter), not with every render. */
export interface ContentMessage {
  readonly type: 'content';
  /** One per canvas (SceneRaster): each keeps its own content in the worker. */
  readonly owner: number;
  readonly contentId: number;
  /** Absolute URL; the worker decodes it itself unless it already has. */
  readonly imageUrl: string | null;
  readonly size: Size;
  readonly filter: string;
  readonly shapes: EncodedPaths;
  readonly tests: EncodedPaths | null;
}

export type ToWorker =
  | { readonly type: 'decode'; readonly id: number; readonly url: string }
  /** The page no longer needs this image: the worker lets its bitmap go. */
  | { readonly type: 'forget'; readonly url: string }
  | ContentMessage
  | { readonly type: 'render'; readonly id: number; readonly owner: number; readonly contentId: number; readonly plan: RasterPlan }
  /** The canvas has gone: its content and the worker's drawing surface are let go. */
  | { readonly type: 'release'; readonly owner: number };

export type FromWorker =
  | { readonly type: 'done'; readonly id: number; readonly bitmap: ImageBitmap }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };
