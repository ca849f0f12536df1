import { bounds, type EditorState, type LabelInfo, type Shape } from '@loupe/annotator';
import type { Geometry } from '@loupe/contracts';
import { appendGeometry, type PathSink } from './geometryPath';

/** Colour of shapes whose label is unknown (a label deleted in another tab). */
export const FALLBACK_COLOR = '#8c8c8c';

export interface TextAnchor {
  readonly text: string;
  /** Image coordinates of the top-left of the shape's bounds. */
  readonly x: number;
  readonly y: number;
  readonly color: string;
}

/** One path per label colour, so 2,000 shapes are drawn with a handful of fill and stroke calls. */
export interface ColorPaths<P> {
  readonly byColor: ReadonlyMap<string, P>;
  readonly texts: readonly TextAnchor[];
}

export function colorMap(labels: readonly LabelInfo[]): ReadonlyMap<number, string> {
  return new Map(labels.map((l) => [l.id, l.color]));
}

/** Select-tool states in which the selected shapes change with every pointer move. */
const MOVING_STATES: ReadonlySet<string> = new Set(['translating', 'resizing', 'rotating', 'vertexDragging']);
const NONE: ReadonlySet<string> = new Set();

/** Shapes being dragged: the overlay draws them on every frame, the cached scene leaves them out. */
export function movingIds(state: EditorState): ReadonlySet<string> {
  return state.tool === 'select' && MOVING_STATES.has(state.toolState) ? state.selectedIds : NONE;
}

/**
 * The shapes the cached scene draws: the visible ones, minus those being dragged. Selected shapes stay in it
 * (the overlay highlights them on top), so a click that selects costs no re-render of 2,000 shapes; the
 * re-render happens once when a drag starts and once when it ends.
 */
export function staticShapes(state: EditorState): Shape[] {
  if (state.shapesHidden) return [];
  const { hiddenLabelIds } = state;
  const moving = movingIds(state);
  if (moving.size === 0 && hiddenLabelIds.size === 0) return state.shapes.slice();
  return state.shapes.filter((s) => !moving.has(s.id) && !hiddenLabelIds.has(s.labelId));
}

/** Same shape objects in the same order: shapes are immutable, so identity means unchanged. */
export function sameShapeList(a: readonly Shape[], b: readonly Shape[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function labelsKey(labels: readonly LabelInfo[]): string {
  return labels.map((l) => `${l.id}:${l.color}`).join(',');
}

export function buildColorPaths<P extends PathSink>(
  items: readonly { readonly labelId: number; readonly geometry: Geometry }[],
  colors: ReadonlyMap<number, string>,
  newPath: () => P,
  text: (item: { readonly geometry: Geometry }) => string | undefined = (item) => item.geometry.text,
): ColorPaths<P> {
  const byColor = new Map<string, P>();
  const texts: TextAnchor[] = [];
  for (const item of items) {
    const color = colors.get(item.labelId) ?? FALLBACK_COLOR;
    let path = byColor.get(color);
    if (!path) byColor.set(color, (path = newPath()));
    appendGeometry(path, item.geometry);
    const label = text(item);
    if (label) {
      const b = bounds(item.geometry);
      texts.push({ text: label, x: b.minX, y: b.minY, color });
    }
  }
  return { byColor, texts };
}

/**
 * Rebuilds the colour paths only when the drawn shapes or the label colours change; panning, zooming, hovering
 * and dragging a selected shape reuse them. The check is O(shapes) identity comparisons, far cheaper than
 * building 40,000 path segments.
 */
export class ShapePathCache<P extends PathSink> {
  private key = '';
  private shapes: readonly Shape[] = [];
  private value: ColorPaths<P> | null = null;

  constructor(private readonly newPath: () => P) {}

  get(state: EditorState): ColorPaths<P> {
    const shapes = staticShapes(state);
    const key = labelsKey(state.labels);
    if (this.value && key === this.key && sameShapeList(shapes, this.shapes)) return this.value;
    this.key = key;
    this.shapes = shapes;
    this.value = buildColorPaths(shapes, colorMap(state.labels), this.newPath);
    return this.value;
  }
}

export interface TestResult {
  readonly id: number;
  readonly labelId: number;
  readonly geometry: Geometry;
  readonly confidence: number;
}

/** The confidence (and an OCR reading) shown next to a dashed test box. */
export function testResultText(r: { readonly geometry: Geometry; readonly confidence?: number }): string {
  const confidence = (r.confidence ?? 0).toFixed(2);
  return r.geometry.text ? `${r.geometry.text} ${confidence}` : confidence;
}

/** Test results change with the query, not with editing: keyed by the array the page passes. */
export class TestPathCache<P extends PathSink> {
  private results: readonly TestResult[] | null = null;
  private key = '';
  private value: ColorPaths<P> | null = null;

  constructor(private readonly newPath: () => P) {}

  get(results: readonly TestResult[] | null, labels: readonly LabelInfo[]): ColorPaths<P> | null {
    if (!results || results.length === 0) return null;
    const key = labelsKey(labels);
    if (this.value && results === this.results && key === this.key) return this.value;
    this.results = results;
    this.key = key;
    this.value = buildColorPaths(results, colorMap(labels), this.newPath, testResultText);
    return this.value;
  }
}
