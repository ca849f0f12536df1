import path from 'node:path';
import { LabelingLimits, type AnnotationFormat, type ErrorName, type Geometry } from '@loupe/contracts';
import type { ErrorVars } from '../../errors.js';
import type { ZipText } from './zip-read.js';

/**
 * Why a shape was left out of an import, or stored in another kind than the file's (issue 33: no silent
 * loss). Each has a sentence in packages/contracts/locales/<lang>/imports.json, counted per file
 * ("{{count}} point shapes: points are not a shape Loupe trains on"); vars fill the rest of the sentence.
 */
export type SkipReason =
  | 'point' // point / points / keypoint shapes
  | 'line' // line, polyline, linestrip
  | 'unsupportedShape' // any other shape type: vars.kind
  | 'noImage' // the image named is neither in the model nor in the ZIP: vars.name
  | 'ambiguousImage' // the name matches several images: vars.name, vars.candidates
  | 'noClassList' // YOLO / DOTA-like files with class indexes and no classes.txt, obj.names or dataset YAML
  | 'unknownClass' // a class index the class list does not have: vars.index, vars.count
  | 'noLabel' // no label / empty label
  | 'badField' // a field of the wrong type, missing, NaN, huge: vars.field (the first such place), vars.expected
  | 'invalid' // no area: zero size, fewer than 3 distinct points, negative sizes
  | 'outside' // wholly outside the image
  | 'tooSmall' // under the model's minimum annotation area: vars.minArea
  | 'tooManyPoints' // vars.max
  | 'tooManyShapes' // the image would hold more than the labeling limit: vars.max
  | 'duplicateShape' // the same label and geometry twice on one image (a file or an image in the ZIP twice)
  | 'labelFailed' // the label could not be created: vars.label, vars.reason
  | 'extraClass' // a single-label classification image given several classes: the first is kept
  | 'extraLabel' // a region given several labels (Label Studio): the first is kept
  | 'noClass' // classification: an image the ZIP carries with no class (added unclassified)
  | 'nested' // classification: an image in folders deeper than <split>/<class>/<image>
  | 'tag'; // an image-level tag or class on a model that trains on shapes (tags become classes in classification)

export type ConvertReason =
  | 'polygonToBox' // a polygon (or multi-part shape) stored as its bounding box: the model trains on boxes
  | 'quadToRbox' // a four-corner shape (YOLO OBB, DOTA, quadrilateral) stored as a rotated box
  | 'boxToPolygon' // a box or rotated box stored as a four-corner polygon (segmentation)
  | 'boxToRbox' // an axis-aligned box stored as a rotated box at 0° (measurement)
  | 'maskToPolygon' // an RLE / bitmap mask traced into polygons
  | 'circleToPolygon' // a circle or ellipse stored as a polygon
  | 'partsSplit' // a multi-part shape stored as one polygon per part
  | 'clamped' // a shape reaching outside the image, cut at its edge
  | 'difficultKept'; // VOC/DOTA "difficult" (or "truncated") flags: imported as ordinary shapes

/** One annotation read from a file, still by names: the importer matches images and labels. */
export interface ParsedAnnotation {
  /** The annotation file (path in the ZIP) it came from, for the report. */
  entry: string;
  /**
   * The image as the file names it: a path with folders, a bare name, or a name without extension (YOLO,
   * DOTA: the label file's own path without `.txt`). The importer matches it (exact, then without folders,
   * then by stem) against the model's images and the ZIP's own.
   */
  image: string;
  label: string;
  geometry: Geometry;
  /** Further parts of the same object (COCO multi-part polygons, a mask's islands): polygons. */
  moreParts?: Geometry[];
  /**
   * Coordinates are fractions (0–1) of the image's width and height (YOLO): the importer scales them once
   * it knows which image is meant.
   */
  normalized?: boolean;
  /** A four-corner polygon that the format means as a (rotated) box: YOLO OBB lines, DOTA, quadrilaterals. */
  quad?: boolean;
  /** The parser already changed the kind (circle → polygon, mask → polygons): reported as converted. */
  converted?: ConvertReason;
  /** VOC/DOTA difficult or truncated flag, kept as an ordinary shape (reported). */
  difficult?: boolean;
}

export interface ParseProblem {
  entry: string;
  key: ErrorName;
  vars?: ErrorVars;
}

/** Shapes a parser left out, by reason; the importer adds its own (no image, too small…). */
export interface Skip {
  entry: string;
  reason: SkipReason;
  vars?: ErrorVars;
  count: number;
}

/** An image a file carries itself (LabelMe `imageData`): added to the gallery when the model lacks it. */
export interface EmbeddedImage {
  entry: string;
  /** The name it takes (the file's imagePath basename, else the JSON's stem + the sniffed extension). */
  name: string;
  data: Buffer;
}

/** An image-level class (classification imports: CVAT tags, CSV/JSON lists, class folders). */
export interface ParsedClass {
  entry: string;
  image: string;
  label: string;
}

export interface Parsed {
  /** Image references (as in ParsedAnnotation.image) whose annotation set the files describe, even when empty. */
  images: Set<string>;
  annotations: ParsedAnnotation[];
  /** Whole files (or file-level fields) that could not be used: answered as refused results. */
  problems: ParseProblem[];
  skips: Skip[];
  embedded: EmbeddedImage[];
  /** Image-level classes (stored on classification models, reported as `tag` skips elsewhere). */
  classes: ParsedClass[];
  /** Format of each annotation file read (the report's rows, in reading order). */
  files: Map<string, AnnotationFormat>;
}

export const emptyParsed = (): Parsed => ({ images: new Set(), annotations: [], problems: [], skips: [], embedded: [], classes: [], files: new Map() });

/** Records shapes left out (merged by the importer per file, reason and vars). */
export function skip(out: Parsed, entry: string, reason: SkipReason, vars?: ErrorVars, count = 1): void {
  out.skips.push({ entry, reason, count, ...(vars ? { vars } : {}) });
}

export interface KnownImage {
  name: string;
  width: number;
  height: number;
}

export interface ExportImage {
  /** File name inside the export (unique within it). */
  file: string;
  width: number;
  height: number;
  annotations: { label: string; labelIndex: number; geometry: Geometry }[];
}

export interface Writer {
  /** Folder the images go to inside the ZIP ('' for beside the annotation files). */
  imageDir: string;
  files(images: ExportImage[], labels: string[]): ZipText[];
}

export const baseName = (p: string) => path.posix.basename(p.replace(/\\/g, '/'));
export const stemOf = (p: string) => {
  const b = baseName(p);
  const dot = b.lastIndexOf('.');
  return dot > 0 ? b.slice(0, dot) : b;
};

/** Rotated boxes have no field in the four formats: they travel as their four corners. */
export function toExportable(g: Geometry): Exclude<Geometry, { kind: 'rbox' }> {
  if (g.kind !== 'rbox') return g;
  const a = (g.angle * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const corners: [number, number][] = [
    [-g.w / 2, -g.h / 2],
    [g.w / 2, -g.h / 2],
    [g.w / 2, g.h / 2],
    [-g.w / 2, g.h / 2],
  ];
  return {
    kind: 'polygon',
    points: corners.map(([x, y]) => [g.cx + x * cos - y * sin, g.cy + x * sin + y * cos] as [number, number]),
    ...(g.text !== undefined ? { text: g.text } : {}),
  };
}

/** The shape's outline as points: a polygon's own, a box's or rotated box's four corners (toExportable's order). */
export function outlineOf(g: Geometry): [number, number][] {
  const flat = toExportable(g);
  if (flat.kind === 'polygon') return flat.points;
  return [
    [flat.x1, flat.y1],
    [flat.x2, flat.y1],
    [flat.x2, flat.y2],
    [flat.x1, flat.y2],
  ];
}

export function boundsOf(g: Exclude<Geometry, { kind: 'rbox' }>): { x1: number; y1: number; x2: number; y2: number } {
  if (g.kind === 'box') return g;
  const xs = g.points.map((p) => p[0]);
  const ys = g.points.map((p) => p[1]);
  return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
}

const finite = (...n: unknown[]) => n.every((v) => isCoord(v));

/** A box with content or a polygon of three or more points; anything else is not an annotation. */
export function validGeometry(g: Geometry): boolean {
  if (g.kind === 'box') return finite(g.x1, g.y1, g.x2, g.y2) && g.x2 > g.x1 && g.y2 > g.y1;
  if (g.kind === 'rbox') return finite(g.cx, g.cy, g.w, g.h, g.angle) && g.w > 0 && g.h > 0;
  return Array.isArray(g.points) && g.points.length >= 3 && g.points.every((p) => Array.isArray(p) && p.length === 2 && finite(p[0], p[1]));
}

export const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/** A JSON list that may hold numbers: long ones arrive from the parse worker as Float64Arrays. */
export const isList = (v: unknown): v is ArrayLike<unknown> & { every(f: (x: unknown) => boolean): boolean } => Array.isArray(v) || v instanceof Float64Array;

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A coordinate an annotation may hold: a finite number no bigger than any image Loupe accepts could need.
 * Strings, NaN, Infinity, null and 1e300 are refused here rather than coerced or stored.
 */
export const COORD_MAX = 1_000_000;
export const isCoord = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= COORD_MAX;

/**
 * What a field should have held, said after the annotationBadField sentence (imports.json `expected`):
 * "… "annotations[3].bbox" is missing, of the wrong type or not a usable number. Expected: [x, y, width, height], numbers."
 */
export type Expected =
  | 'number'
  | 'text'
  | 'object'
  | 'list'
  | 'points' // a list of [x, y] number pairs
  | 'flatPoints' // x1, y1, x2, y2, … numbers, an even count of at least 6
  | 'bbox' // [x, y, width, height], width and height > 0
  | 'corners' // four corners: 8 numbers
  | 'imageRef' // the id of an image listed in the file
  | 'categoryRef' // the id of a category listed in the file
  | 'classIndex' // a whole number indexing the class list
  | 'rle' // an RLE mask: size [h, w] and counts (a list or a compressed string)
  | 'positiveSize' // a width and height above 0
  | 'yoloLine'; // class then 4 (box), 8 (rotated box) or an even count ≥ 6 (polygon) values, 0–1

/**
 * A field that spoils one shape (or a file-level field): listed in the answer with the file, the place and what
 * was expected (annotationBadField), and counted as a skipped shape of its file.
 */
export function badField(out: Parsed, entry: string, field: string, expected?: Expected): void {
  out.problems.push({ entry, key: 'annotationBadField', vars: { entry, field, ...(expected ? { expected } : {}) } });
}

export function tooManyPoints(out: Parsed, entry: string, max: number): void {
  out.problems.push({ entry, key: 'annotationTooManyPoints', vars: { entry, max } });
}

/**
 * XML is parsed with entities off (no expansion attacks), so the five predefined entities and character
 * references that tools write for "&", "<"… (labelImg's ElementTree, CVAT) arrive as written: decode only those.
 */
const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
export const decodeXmlEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (m, e: string) => {
    if (e[0] !== '#') return XML_ENTITIES[e.toLowerCase()] ?? m;
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });

/** What a format's element reader answers: a shape, a bad field, too many points, or nothing to outline (an empty mask). */
export type ShapeRead = Pick<ParsedAnnotation, 'geometry' | 'moreParts' | 'converted'> | { field: string; expected: Expected } | 'tooMany' | null;

/** Records one read element: the shape with its label and text, or why it was left out. */
export function addShape(out: Parsed, entry: string, image: string, label: string, read: ShapeRead, text: string | undefined): void {
  if (read === 'tooMany') return tooManyPoints(out, entry, LabelingLimits.polygonPointsMax);
  // A mask with no island big enough to outline.
  if (read === null) return skip(out, entry, 'invalid');
  if ('field' in read) return badField(out, entry, read.field, read.expected);
  if (text !== undefined) read.geometry.text = text;
  out.annotations.push({ entry, image, label, ...read });
}

export { breathe } from '../gallery/breathe.js';
