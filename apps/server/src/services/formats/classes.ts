import path from 'node:path';
import { ImageExtensions } from '@loupe/contracts';
import { csvRows, separatorOf } from './csv.js';
import { badField, breathe, isObject, type Parsed } from './types.js';

/**
 * Classification imports (issue 33): lists of image → class that tools write beside the images (CSV with a
 * header, Roboflow's one-hot `_classes.csv`, Label Studio's CSV and JSON-MIN, plain JSON maps), and the
 * folder-per-class layout (`<class>/<img>`, `<split>/<class>/<img>`). Names are only ever matched, never opened.
 */

const FILE_COLUMNS = ['filename', 'file_name', 'file', 'image', 'image_name', 'imagename', 'image_path', 'img', 'path', 'filepath', 'image_id', 'name'];
const LABEL_COLUMNS = ['label', 'class', 'category', 'class_name', 'classname', 'category_name', 'labels', 'classes', 'choice', 'choices', 'target', 'tag'];

const isImageName = (v: string) => ImageExtensions.some((e) => v.toLowerCase().endsWith(e));
const column = (header: string[], names: string[]) => {
  const keys = header.map((h) => h.trim().toLowerCase());
  for (const n of names) {
    const i = keys.indexOf(n);
    if (i >= 0) return i;
  }
  return -1;
};
const ONE_HOT = /^\s*[01](\.0*)?\s*$/;

type CsvLayout = { kind: 'label'; file: number; label: number } | { kind: 'oneHot'; file: number } | { kind: 'bare' };

/** How a CSV names its columns; null when it is not a class list. */
function layoutOf(text: string): { layout: CsvLayout; rows: ReturnType<typeof csvRows> } | null {
  const rows = csvRows(text, separatorOf(text));
  const header = rows[0]?.cells;
  if (!header || header.length < 2) return null;
  const file = column(header, FILE_COLUMNS);
  const label = column(header, LABEL_COLUMNS);
  if (file >= 0 && label >= 0) return { layout: { kind: 'label', file, label }, rows };
  // Roboflow's _classes.csv: "filename, cat, dog", then 0/1 per class.
  if (file === 0 && rows.length > 1 && rows.slice(1).every((r) => r.cells.slice(1).every((c) => ONE_HOT.test(c)))) return { layout: { kind: 'oneHot', file }, rows };
  // No header at all: "a.jpg,cat" on every line.
  if (rows.every((r) => r.cells.length >= 2 && isImageName(r.cells[0]!.trim()) && r.cells[1]!.trim() !== '')) return { layout: { kind: 'bare' }, rows };
  return null;
}

/** JSON forms: { "a.jpg": "cat" }, [{ file, label }], { images: [{ file, label }] } (nothing else beside). */
function jsonItems(doc: unknown): { items: unknown[]; at: (i: number) => string } | { map: Record<string, unknown> } | null {
  const listOf = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(isObject) && pair(v[0] as Record<string, unknown>) !== null;
  if (listOf(doc)) return { items: doc as unknown[], at: (i) => `[${i}]` };
  if (isObject(doc)) {
    const keys = Object.keys(doc);
    if (keys.length === 1 && keys[0] === 'images' && listOf(doc.images)) return { items: doc.images as unknown[], at: (i) => `images[${i}]` };
    const value = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (keys.length > 0 && keys.some(isImageName) && Object.values(doc).every(value)) return { map: doc };
  }
  return null;
}

/** The file and label keys of one list item (case-insensitive), or null. */
function pair(item: Record<string, unknown>): { file: string; label: string } | null {
  const keys = Object.keys(item);
  const find = (names: string[]) => names.map((n) => keys.find((k) => k.toLowerCase() === n)).find((k) => k !== undefined);
  const file = find(FILE_COLUMNS);
  const label = find(LABEL_COLUMNS);
  return file && label ? { file, label } : null;
}

function parseDoc(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}

/** A CSV/TSV with a file column and a class column (or one-hot class columns), or a JSON list of file → class. */
export function isClassList(file: string, text: string, doc?: unknown): boolean {
  if (/\.(csv|tsv)$/i.test(file)) return layoutOf(text.replace(/^\uFEFF/, '')) !== null;
  if (/\.json$/i.test(file)) return jsonItems(doc !== undefined ? doc : parseDoc(text)) !== null;
  return false;
}

/**
 * Image-level classes into out.classes, each image also into out.images (an image listed with no class stays
 * listed: the importer adds it unclassified). `doc`: the JSON already parsed (on the worker), when it was.
 * Several classes for one image (several 1s, a list, Label Studio's {"choices": [...]}) give one entry each.
 */
export async function parseClassList(entry: string, text: string, out: Parsed, doc?: unknown): Promise<void> {
  out.files.set(entry, 'list');
  // fileAt / labelAt: the places named when a value is unusable ('[3].filename', 'line 4, "label"').
  const add = (fileAt: string, labelAt: string, image: unknown, labels: unknown) => {
    const ref = typeof image === 'string' || typeof image === 'number' ? imageRef(entry, String(image)) : '';
    if (!ref) return badField(out, entry, fileAt, 'text');
    const names = labelsOf(labels);
    if (names === null) return badField(out, entry, labelAt, 'text');
    out.images.add(ref);
    for (const label of names) out.classes.push({ entry, image: ref, label });
  };
  if (/\.json$/i.test(entry)) {
    const found = jsonItems(doc !== undefined ? doc : parseDoc(text));
    if (!found) return badField(out, entry, '(whole file)', 'list');
    if ('map' in found) for (const [k, v] of Object.entries(found.map)) add(`["${k.slice(0, 100)}"]`, `["${k.slice(0, 100)}"]`, k, v);
    else
      for (const [i, item] of found.items.entries()) {
        if (i % 5000 === 4999) await breathe();
        if (!isObject(item)) {
          badField(out, entry, found.at(i), 'object');
          continue;
        }
        const keys = pair(item);
        if (!keys) {
          badField(out, entry, `${found.at(i)}.label`, 'text');
          continue;
        }
        add(`${found.at(i)}.${keys.file}`, `${found.at(i)}.${keys.label}`, item[keys.file], item[keys.label]);
      }
    return;
  }
  const parsed = layoutOf(text.replace(/^\uFEFF/, ''));
  if (!parsed) return badField(out, entry, 'line 1', 'text');
  const { layout, rows } = parsed;
  const header = rows[0]!.cells.map((c) => c.trim());
  const fileCol = layout.kind === 'bare' ? 0 : layout.file;
  const labelCol = layout.kind === 'label' ? layout.label : 1;
  for (const [i, { line, cells }] of (layout.kind === 'bare' ? rows : rows.slice(1)).entries()) {
    if (i % 5000 === 4999) await breathe();
    const at = (col: number) => (layout.kind === 'bare' ? `line ${line}, column ${col + 1}` : `line ${line}, "${header[col]}"`);
    const labels =
      layout.kind === 'oneHot' ? header.flatMap((name, i) => (i > 0 && ONE_HOT.test(cells[i] ?? '') && parseFloat(cells[i]!) === 1 ? [name] : [])) : (cells[labelCol] ?? '');
    add(at(fileCol), at(labelCol), cells[fileCol]?.trim() ?? '', labels);
  }
}

/** "cat", 3, ["cat", "dog"], Label Studio's '{"choices": ["cat", "dog"]}' → names; empty → no class; else null. */
function labelsOf(v: unknown): string[] | null {
  if (v === null || v === undefined) return [];
  if (typeof v === 'number' && Number.isFinite(v)) return [String(v)];
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string') ? (v as string[]).map((s) => s.trim()).filter(Boolean) : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (s.startsWith('{"choices"')) {
    const d = parseDoc(s);
    if (isObject(d) && Array.isArray(d.choices)) return labelsOf(d.choices);
  }
  return s ? [s] : [];
}

/**
 * A listed name relative to the list's folder (Roboflow puts `_classes.csv` beside each split's images); a URL,
 * an absolute or a drive path (Label Studio's `/data/upload/1/x.jpg`, a labeller's disk) keeps its name only.
 */
function imageRef(entry: string, name: string): string {
  let p = name.trim().replace(/\\/g, '/');
  // Label Studio's local files: /data/local-files/?d=<folder>/<name>
  const local = /[?&]d=([^&#]+)/.exec(p);
  if (local) p = `/${safeDecode(local[1]!)}`;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) p = p.replace(/^[^:]+:\/\/[^/]*/, '').replace(/[?#].*$/, '');
  if (!p || p.endsWith('/')) return '';
  if (p.startsWith('/') || /^[a-z]:/i.test(p)) return path.posix.basename(p);
  return path.posix.normalize(path.posix.join(path.posix.dirname(entry), p)).replace(/^(\.\.\/)+/, '');
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

const SPLITS: Record<string, 'train' | 'valid' | 'test'> = { train: 'train', valid: 'valid', val: 'valid', validation: 'valid', test: 'test' };
const splitOf = (folder: string) => SPLITS[folder.toLowerCase()];

/**
 * The class of an image in a folder-per-class ZIP: `<class>/<img>`, `<split>/<class>/<img>`, each optionally
 * under one top folder. Loupe's own export writes `_unlabeled/` (no class) and `_none/` (confirmed no class,
 * multi-label): label '' (and `negative`). Images at the root, in a split folder without a class folder, or
 * nested deeper: null.
 */
export function classFromPath(file: string): { label: string; split?: 'train' | 'valid' | 'test'; negative?: true } | null {
  const parts = file.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  const name = parts.pop();
  if (!name || !isImageName(name) || parts.some((p) => p.startsWith('.') || p === '__MACOSX') || name.startsWith('.')) return null;
  let split: 'train' | 'valid' | 'test' | undefined;
  let folder: string | undefined;
  if (parts.length === 1 && !splitOf(parts[0]!)) folder = parts[0];
  else if (parts.length === 2 && splitOf(parts[0]!) && !splitOf(parts[1]!)) [split, folder] = [splitOf(parts[0]!), parts[1]];
  else if (parts.length === 2 && !splitOf(parts[1]!)) folder = parts[1];
  else if (parts.length === 3 && splitOf(parts[1]!) && !splitOf(parts[2]!)) [split, folder] = [splitOf(parts[1]!), parts[2]];
  const label = folder?.trim();
  if (!label) return null;
  const none = label === '_none' || label === '_unlabeled';
  return { label: none ? '' : label, ...(split ? { split } : {}), ...(label === '_none' ? { negative: true as const } : {}) };
}

/** The split a ZIP path's folders name (train, valid/val/validation, test), e.g. for images a class list names. */
export function splitFromPath(file: string): 'train' | 'valid' | 'test' | undefined {
  const parts = file.replace(/\\/g, '/').split('/');
  parts.pop();
  return parts.map(splitOf).find((s) => s !== undefined);
}
