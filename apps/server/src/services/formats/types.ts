import path from 'node:path';
import type { ErrorName, Geometry } from '@loupe/contracts';
import type { ErrorVars } from '../../errors.js';
import type { ZipText } from './zip-read.js';

/** One annotation read from a file, still by names: the importer matches images and labels. */
export interface ParsedAnnotation {
  image: string;
  label: string;
  geometry: Geometry;
}

export interface ParseProblem {
  entry: string;
  key: ErrorName;
  vars?: ErrorVars;
}

export interface Parsed {
  /** Image names (basenames) whose annotation set the files describe, even when empty. */
  images: Set<string>;
  annotations: ParsedAnnotation[];
  problems: ParseProblem[];
}

export interface KnownImage {
  name: string;
  width: number;
  height: number;
}

/** What a parser can ask about the gallery: images by basename or by stem (YOLO names files by stem). */
export interface Gallery {
  byStem(stem: string): KnownImage | undefined;
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

/** The file and the field that is wrong, in the user's language (annotationBadField). */
export function badField(out: Parsed, entry: string, field: string): void {
  out.problems.push({ entry, key: 'annotationBadField', vars: { entry, field } });
}

export function tooManyPoints(out: Parsed, entry: string, max: number): void {
  out.problems.push({ entry, key: 'annotationTooManyPoints', vars: { entry, max } });
}

export { breathe } from '../gallery/breathe.js';
