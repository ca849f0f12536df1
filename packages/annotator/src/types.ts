import type { Geometry } from '@loupe/contracts';

/**
 * Public types of the headless labeling core. Geometry is stored in image pixels (x right, y down); rotated-box
 * angles are degrees clockwise, as in @loupe/contracts. Coordinate spaces and angles are branded so that a
 * screen point can never be passed where an image point is expected.
 */
declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type ImagePoint = Brand<{ readonly x: number; readonly y: number }, 'ImagePoint'>;
export type ScreenPoint = Brand<{ readonly x: number; readonly y: number }, 'ScreenPoint'>;
export type Radians = Brand<number, 'Radians'>;
export type Degrees = Brand<number, 'Degrees'>;

export const imagePoint = (x: number, y: number) => ({ x, y }) as ImagePoint;
export const screenPoint = (x: number, y: number) => ({ x, y }) as ScreenPoint;

/** One annotation on the canvas. `id` is local to the editor (server ids change with every saved version). */
export interface Shape {
  readonly id: string;
  readonly labelId: number;
  /** Contract geometry; an OCR text rides in geometry.text. */
  readonly geometry: Geometry;
}

export interface LabelInfo {
  readonly id: number;
  readonly name: string;
  /** #rrggbb */
  readonly color: string;
}

/** Which tools a labeling page offers (SPEC §2 /mark per model type). */
export type EditorMode = 'detection' | 'segmentation' | 'ocr' | 'measure';
export type ToolId = 'select' | 'box' | 'rbox' | 'polygon' | 'pan';
export const TOOLS_BY_MODE: Record<EditorMode, readonly ToolId[]> = {
  detection: ['select', 'box', 'rbox', 'pan'],
  segmentation: ['select', 'polygon', 'pan'],
  ocr: ['select', 'rbox', 'box', 'pan'],
  measure: ['select', 'polygon', 'rbox', 'pan'],
};

/** screen = image * scale + (tx, ty). width/height are the canvas size in CSS pixels. */
export interface Viewport {
  readonly scale: number;
  readonly tx: number;
  readonly ty: number;
  readonly width: number;
  readonly height: number;
}

/** Handles of the selected shape, for hit testing and drawing. */
export type HandleKind = 'corner' | 'edge' | 'rotate' | 'vertex' | 'midpoint';
export interface Handle {
  readonly shapeId: string;
  readonly kind: HandleKind;
  /** Corner/edge index (0..3, clockwise from top-left in the shape's own frame), or vertex index. */
  readonly index: number;
  readonly at: ImagePoint;
}

/** The shape being drawn, for the renderer's preview (polygon: the points placed so far plus the cursor). */
export type Draft =
  | { readonly kind: 'box' | 'rbox'; readonly geometry: Geometry }
  | { readonly kind: 'polygon'; readonly points: readonly ImagePoint[]; readonly cursor: ImagePoint | null; readonly closable: boolean }
  | { readonly kind: 'marquee'; readonly from: ImagePoint; readonly to: ImagePoint };

/** Messages the host shows in the user's language (keys of the web's `mark` namespace). */
export type Notice =
  | 'selectLabelFirst' // "please select or create a label"
  | 'tooSmall' // below the minimum area
  | 'drawingNotFinished'
  | 'firstImage' // "already the first image"
  | 'lastImage' // "already the last image"
  | 'nothingToPaste';

export interface Modifiers {
  readonly shift?: boolean;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly alt?: boolean;
}
export interface PointerInput extends Modifiers {
  readonly point: ScreenPoint;
  /** 0 left, 1 middle, 2 right. */
  readonly button: number;
}
export interface KeyInput extends Modifiers {
  /** KeyboardEvent.key */
  readonly key: string;
  /** KeyboardEvent.code */
  readonly code: string;
}

/** Immutable snapshot; a new object after every change. */
export interface EditorState {
  readonly image: { readonly width: number; readonly height: number };
  readonly mode: EditorMode;
  readonly labels: readonly LabelInfo[];
  /** Bottom to top: later shapes draw over and hit-test before earlier ones. */
  readonly shapes: readonly Shape[];
  readonly selectedIds: ReadonlySet<string>;
  readonly activeLabelId: number | null;
  readonly tool: ToolId;
  /** Current state of the active tool's state machine, e.g. 'idle', 'drawing', 'translating', 'resizing'. */
  readonly toolState: string;
  readonly draft: Draft | null;
  readonly hover: { readonly shapeId: string | null; readonly handle: Handle | null };
  readonly hiddenLabelIds: ReadonlySet<number>;
  /** Hide all shapes (the "hide and show" action). */
  readonly shapesHidden: boolean;
  readonly viewport: Viewport;
  /** True while space is held or a middle-button drag runs. */
  readonly panning: boolean;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  /** Smallest accepted shape area in image px². */
  readonly minArea: number;
  /** Increases whenever `shapes` changes (renderers cache paths per revision). */
  readonly shapesRevision: number;
}

/** What a change means for the host: `commit` changes go into history and must be saved. */
export interface ChangeInfo {
  readonly commit: boolean;
}

/** Every user command (excalidraw-style): shortcuts, buttons and menus all go through these. */
export interface Action {
  readonly name: string;
  /** i18n key in the web's `mark` namespace for menus and tooltips. */
  readonly labelKey: string;
  /** Shortcut shown in tooltips, e.g. 'Ctrl+Z'. */
  readonly shortcut?: string;
  keyTest?(key: KeyInput, state: EditorState): boolean;
  /** Returns false when nothing happened (the host may then let the key through). */
  perform(editor: EditorLike, key?: KeyInput): boolean;
}

/** Host callbacks: navigation and notices are the page's business, not the core's. */
export interface EditorHost {
  notice?(notice: Notice, values?: Record<string, string | number>): void;
  /** previous/next image requested (PageUp/PageDown, A/D, buttons). */
  navigate?(direction: -1 | 1): void;
}

/** The Editor's surface as actions see it (the full class is in editor.ts). */
export interface EditorLike {
  readonly state: EditorState;
  readonly host: EditorHost;
  setTool(tool: ToolId): boolean;
  setActiveLabel(labelId: number | null): void;
  setLabelOfSelection(labelId: number): boolean;
  undo(): boolean;
  redo(): boolean;
  deleteSelected(): boolean;
  copy(): boolean;
  paste(): boolean;
  selectAll(): void;
  clearSelection(): void;
  fit(): void;
  zoomBy(factor: number, around?: ScreenPoint): void;
  toggleShapesHidden(): void;
  cancelDrawing(): boolean;
  finishDrawing(): boolean;
  removeLastPoint(): boolean;
  hasUnfinishedDrawing(): boolean;
}
