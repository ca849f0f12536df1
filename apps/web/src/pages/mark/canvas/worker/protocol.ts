import type { RasterPlan, Size } from '../layers/rasterPlan';
import type { EncodedPaths } from '../pathRecorder';

/** What the scene worker draws: sent once per content (new shapes, image, filter), not with every render. */
export interface ContentMessage {
  readonly type: 'content';
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
  | { readonly type: 'render'; readonly id: number; readonly contentId: number; readonly plan: RasterPlan };

export type FromWorker =
  | { readonly type: 'done'; readonly id: number; readonly bitmap: ImageBitmap }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };
