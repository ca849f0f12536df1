import { LabelingLimits } from '@loupe/contracts';
import type { ImageSize } from './geometry/clamp.js';
import { emptyViewport } from './geometry/viewport.js';
import { TOOLS_BY_MODE, type EditorHost, type EditorMode, type EditorState, type LabelInfo, type Shape, type ToolId } from './types.js';

export interface EditorOptions {
  readonly image: ImageSize;
  readonly mode: EditorMode;
  readonly labels: readonly LabelInfo[];
  readonly shapes?: readonly Shape[];
  /** Image px²; defaults to LabelingLimits.minAreaDefault. */
  readonly minArea?: number;
  readonly host?: EditorHost;
  /** History key of the first image (Editor.load names the later ones). */
  readonly imageKey?: string;
  readonly activeLabelId?: number | null;
  /** Defaults to select. */
  readonly tool?: ToolId;
}

export function initialState(options: EditorOptions, shapes: readonly Shape[]): EditorState {
  const tools = TOOLS_BY_MODE[options.mode];
  const active = options.activeLabelId ?? null;
  return {
    image: { width: options.image.width, height: options.image.height },
    mode: options.mode,
    labels: options.labels,
    shapes,
    selectedIds: new Set(),
    activeLabelId: active !== null && options.labels.some((l) => l.id === active) ? active : null,
    tool: options.tool && tools.includes(options.tool) ? options.tool : 'select',
    toolState: 'idle',
    draft: null,
    hover: { shapeId: null, handle: null },
    hiddenLabelIds: new Set(),
    shapesHidden: false,
    viewport: emptyViewport,
    panning: false,
    canUndo: false,
    canRedo: false,
    minArea: Math.max(0, options.minArea ?? LabelingLimits.minAreaDefault),
    shapesRevision: 0,
  };
}
