import fs from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { LabelingLimits, Limits, type AnnotationImportData, type ErrorName, type Language, type UploadResult } from '@loupe/contracts';
import { AppError, fail, type ErrorVars } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { ensureLabels } from '../labels.js';
import { receiveFiles } from '../gallery/receive.js';
import { parseJson, parseXml } from '../gallery/workers.js';
import { readZip, type ZipText } from './zip-read.js';
import { isCoco, parseCoco } from './coco.js';
import { isLabelMe, parseLabelMe } from './labelme.js';
import { hasDoctype, isVoc, parseVoc } from './voc.js';
import { parseClassNames, parseYolo } from './yolo.js';
import { baseName, breathe, stemOf, type KnownImage, type Parsed } from './types.js';

type Format = AnnotationImportData['format'];
const ANNOTATION_FILE = /\.(json|xml|txt|ya?ml)$/i;

/**
 * Offline annotation ZIP (SPEC §5): COCO, Pascal VOC, LabelMe or YOLO, matched to the model's images by file
 * name. Images must be uploaded first. Each matched image's annotation set is replaced by a new version in one
 * transaction; files that match nothing or cannot be read are reported, and a ZIP that yields no annotation
 * at all stores nothing (noValidAnnotations).
 */
export async function importAnnotationZip(deps: Deps, model: Model, req: FastifyRequest, lang: Language): Promise<AnnotationImportData> {
  if (model.type === 'classification') fail('wrongModelType');
  if ((await deps.images.count(model.id)) === 0) fail('annotationsBeforeImages');
  let zipFile: string | null = null;
  let tooLarge = false;
  await receiveFiles(deps, req, 'file', (f) => {
    if (zipFile || f.tooLarge) {
      tooLarge ||= f.tooLarge;
      return f.tempFile ? fs.promises.rm(f.tempFile, { force: true }) : undefined;
    }
    zipFile = f.tempFile;
  }, deps.config.gallery.uploadMaxBytes);
  if (tooLarge) fail('zipTooLarge');
  if (!zipFile) fail('uploadFailed');
  const g = deps.config.gallery;
  const parsed: Parsed = { images: new Set(), annotations: [], problems: [] };
  const counts: Record<Format, number> = { coco: 0, voc: 0, yolo: 0, labelme: 0 };
  // YOLO label files need the class list, which may come later in the ZIP: they wait (small text, and
  // bounded with the rest by Limits.annotationFilesMaxBytes). JSON and XML are parsed as they arrive.
  const deferred: ZipText[] = [];
  try {
    const limits = { maxUncompressed: g.zipMaxUncompressedBytes, maxEntry: g.zipEntryMaxBytes, maxEntries: g.zipMaxEntries };
    await readZip(zipFile, limits, (p) => ANNOTATION_FILE.test(p), async (e) => {
      await breathe();
      if (/\.xml$/i.test(e.path)) await readVoc(e, parsed, counts);
      else if (/\.json$/i.test(e.path)) await readJson(e, parsed, counts);
      else deferred.push(e);
    });
  } finally {
    await fs.promises.rm(zipFile, { force: true });
  }

  const images = await deps.images.all(model.id);
  const byName = new Map<string, typeof images>();
  const byStem = new Map<string, KnownImage>();
  for (const img of images) {
    byName.set(img.name_key, [...(byName.get(img.name_key) ?? []), img]);
    if (!byStem.has(stemOf(img.name_key))) byStem.set(stemOf(img.name_key), img);
  }
  const classFile = deferred.find((e) => /(^|\/)classes\.txt$/i.test(e.path)) ?? deferred.find((e) => /(^|\/)data\.ya?ml$/i.test(e.path));
  const classNames = classFile ? parseClassNames(classFile.path, classFile.data.toString('utf8')) : null;
  for (const e of deferred) {
    await breathe();
    if (e === classFile || /(^|\/)(classes\.txt|data\.ya?ml)$/i.test(e.path) || /\.ya?ml$/i.test(e.path)) continue;
    if (/\.txt$/i.test(e.path) && classNames) {
      counts.yolo += 1;
      await parseYolo(e.path, e.data.toString('utf8'), classNames, { byStem: (s) => byStem.get(s.toLowerCase()) }, parsed);
    }
  }
  limitShapes(parsed);
  const format = (Object.keys(counts) as Format[]).reduce((a, b) => (counts[b] > counts[a] ? b : a), 'coco');
  return store(deps, model, parsed, byName, format, lang);
}

/** A VOC file, parsed on the worker (fast-xml-parser reads a few MB/s: on the event loop one file could hold every other request). */
async function readVoc(e: ZipText, parsed: Parsed, counts: Record<Format, number>): Promise<void> {
  const text = e.data.toString('utf8');
  if (hasDoctype(text)) throw new AppError('xmlDoctype', { entry: e.path });
  if (!isVoc(text)) return;
  counts.voc += 1;
  const xml = await parseXml(e.data, Limits.annotationMaxDepth).catch(() => ({ error: 'invalid' as const }));
  if ('error' in xml) return unreadable(e.path, xml.error, parsed);
  await parseVoc(e.path, xml.doc, parsed);
}

/** A COCO or LabelMe file, parsed on the worker; other JSON is not an annotation file and is skipped. */
async function readJson(e: ZipText, parsed: Parsed, counts: Record<Format, number>): Promise<void> {
  const result = await parseJson(e.data, Limits.annotationMaxDepth).catch(() => ({ error: 'invalid' as const }));
  if ('error' in result) return unreadable(e.path, result.error, parsed);
  const json = result.doc;
  if (isCoco(json)) {
    counts.coco += 1;
    await parseCoco(e.path, json, parsed);
  } else if (isLabelMe(json)) {
    counts.labelme += 1;
    await parseLabelMe(e.path, json, parsed);
  }
}

function unreadable(entry: string, why: 'deep' | 'invalid', parsed: Parsed): void {
  if (why === 'deep') parsed.problems.push({ entry, key: 'annotationTooDeep', vars: { entry, max: Limits.annotationMaxDepth } });
  else parsed.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
}

/**
 * More shapes on one image than the labeling studio allows would be refused there; refuse them here too,
 * leaving that image's annotations as they were (it is dropped from the import, not emptied).
 */
function limitShapes(parsed: Parsed): void {
  const max = LabelingLimits.shapesPerImageMax;
  const perImage = new Map<string, number>();
  for (const a of parsed.annotations) perImage.set(a.image.toLowerCase(), (perImage.get(a.image.toLowerCase()) ?? 0) + 1);
  const over = new Set([...perImage].filter(([, n]) => n > max).map(([k]) => k));
  if (over.size === 0) return;
  parsed.annotations = parsed.annotations.filter((a) => !over.has(a.image.toLowerCase()));
  for (const image of [...parsed.images]) {
    if (!over.has(image.toLowerCase())) continue;
    parsed.images.delete(image);
    parsed.problems.push({ entry: image, key: 'annotationTooManyShapes', vars: { image, max } });
  }
}

/** Problems listed in one answer; a file with a million bad shapes would otherwise make a million-line reply. */
const PROBLEMS_SHOWN = 1000;

async function store(
  deps: Deps,
  model: Model,
  parsed: Parsed,
  byName: Map<string, Awaited<ReturnType<Deps['images']['all']>>>,
  format: Format,
  lang: Language,
): Promise<AnnotationImportData> {
  const refused = (name: string, key: ErrorName, vars?: ErrorVars): UploadResult => ({
    name,
    status: 'refused',
    code: new AppError(key).def.code,
    message: errorMessage(lang, key, vars),
  });
  const results: UploadResult[] = parsed.problems.slice(0, PROBLEMS_SHOWN).map((p) => refused(p.entry, p.key, p.vars));
  const matched = [...parsed.images].filter((n) => byName.has(n.toLowerCase()));
  for (const n of parsed.images) if (!byName.has(n.toLowerCase())) results.push(refused(n, 'annotationNoImage', { name: n }));
  const usable = parsed.annotations.filter((a) => byName.has(baseName(a.image).toLowerCase()));
  if (usable.length === 0) fail('noValidAnnotations', {}, { results });
  const now = deps.now();
  let stored = 0;
  let created: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const labels = await ensureLabels(deps, trx, model.id, new Set(usable.map((a) => a.label)));
    created = labels.created;
    for (const p of labels.problems) {
      results.push(refused(p.name, 'labelCreateFailed', { label: p.name, reason: errorMessage(lang, p.key, { field: 'name', max: deps.config.gallery.labelMax, ...p.vars }) }));
    }
    const perImage = new Map<string, { labelId: number; geometry: (typeof usable)[number]['geometry'] }[]>();
    for (const a of usable) {
      const labelId = labels.ids.get(a.label.trim().toLowerCase());
      const key = a.image.toLowerCase();
      if (!perImage.has(key)) perImage.set(key, []);
      if (labelId !== undefined) perImage.get(key)!.push({ labelId, geometry: a.geometry });
    }
    for (const name of matched) {
      // SQLite answers synchronously: thousands of images in one go would hold the event loop. Other requests
      // run meanwhile; their queries wait for this transaction's connection (the driver's lock), as before.
      await breathe();
      const items = perImage.get(name.toLowerCase()) ?? [];
      for (const img of byName.get(name.toLowerCase())!) {
        await deps.annotations.replace(trx, img, items, now);
        stored += items.length;
      }
    }
    await deps.models.bumpDataVersion(trx, model.id);
  });
  return { format, imagesMatched: matched.reduce((n, m) => n + byName.get(m.toLowerCase())!.length, 0), annotations: stored, labelsCreated: created, results };
}
