import fs from 'node:fs';
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import {
  LabelingLimits,
  Limits,
  type AnnotationImportData,
  type ErrorName,
  type Geometry,
  type Language,
  type Split,
  type UploadResult,
} from '@loupe/contracts';
import { AppError, fail, type ErrorVars } from '../../errors.js';
import { errorMessage } from '../../i18n.js';
import type { Model } from '../../db/models.js';
import type { DB } from '../../db/schema.js';
import type { Image, NewImage } from '../../db/images.js';
import { replaceClassSet } from '../../db/image-classes.js';
import type { Deps } from '../deps.js';
import { ensureLabels } from '../labels.js';
import { receiveFiles, type ReceivedFile } from '../gallery/receive.js';
import { checkImage, isRefusal, type Checked } from '../gallery/check.js';
import { blobClaims, removeBlobsIfUnused } from '../gallery/blob-cleanup.js';
import { cleanName } from '../gallery/uploads.js';
import { sniffKind } from '../gallery/probe.js';
import { parseJson, parseXml } from '../gallery/workers.js';
import { readZip, type ZipText } from './zip-read.js';
import { isCoco, parseCoco } from './coco.js';
import { isCvat, parseCvat } from './cvat.js';
import { isDatumaro, parseDatumaro } from './datumaro.js';
import { isDota, parseDota } from './dota.js';
import { isLabelMe, parseLabelMe } from './labelme.js';
import { isLabelStudio, parseLabelStudio } from './labelstudio.js';
import { hasDoctype, isVoc, parseVoc } from './voc.js';
import { findClassList, isYoloLabelFile, parseYolo } from './yolo.js';
import { classFromPath, isClassList, parseClassList, splitFromPath } from './classes.js';
import { adaptToModel, fitShape, KINDS_BY_TYPE, scaleGeometry } from './adapt.js';
import { ImageMatcher, refKey } from './matching.js';
import { canonical } from '../labeling/geometry.js';
import { PROBLEMS_SHOWN, refused, Report, reportProblems } from './report.js';
import { baseName, breathe, emptyParsed, type Parsed } from './types.js';

/** Files read as annotations or class lists; everything else in the ZIP but images is passed over. */
const TEXT_FILE = /\.(json|xml|txt|ya?ml|csv|tsv|names|labels)$/i;
const IMAGE_FILE = /\.(jpe?g|png|bmp|mpo|tiff?|webp)$/i;
/** macOS resource forks and hidden files: never data. */
const JUNK = /(^|\/)(__MACOSX\/|\.[^/]*$)/;

/** ZIP images checked at once (as the gallery upload does): sharp decodes on libuv's pool. */
const IMAGES_IN_FLIGHT = 4;

/** An image this import knows: one of the model's, or one the ZIP carries (added when the import commits). */
type Target = { existing: Image } | { fresh: Fresh };
interface Fresh {
  checked: Checked;
  name: string;
  split: Split | null;
  /** Set once inserted. */
  id?: number;
}

/** One Target object per image, so that maps keyed by target meet the same image under every name. */
class Targets {
  private readonly existing = new Map<number, Target>();
  private readonly fresh = new Map<Fresh, Target>();
  of(img: Image): Target {
    let t = this.existing.get(img.id);
    if (!t) this.existing.set(img.id, (t = { existing: img }));
    return t;
  }
  ofFresh(f: Fresh): Target {
    let t = this.fresh.get(f);
    if (!t) this.fresh.set(f, (t = { fresh: f }));
    return t;
  }
}


/**
 * Annotation ZIP (SPEC §5, issue 33): COCO, Pascal VOC (incl. roLabelImg), LabelMe / X-AnyLabeling, YOLO
 * (detect, segment, OBB), DOTA and CVAT XML for shape models; class folders, CSV/JSON lists and CVAT tags for
 * classification. The ZIP may carry its images (Roboflow, CVAT, Ultralytics exports; LabelMe `imageData`):
 * those the model lacks are added. Shapes are matched to images by name (matching.ts), converted to the kinds
 * the model trains on (adapt.ts), clamped into their image and checked as the labeling studio checks them.
 * Every matched image's set is replaced in one transaction with the new images; an import that yields
 * nothing stores nothing (noValidAnnotations). The answer reports, per file, the shapes taken and every shape
 * left out or converted, by reason, in the caller's language.
 */
export async function importAnnotationZip(deps: Deps, model: Model, req: FastifyRequest, lang: Language): Promise<AnnotationImportData> {
  const classification = model.type === 'classification';
  if (!classification && !KINDS_BY_TYPE[model.type]) fail('wrongModelType');
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

  const parsed = emptyParsed();
  const results: UploadResult[] = [];
  const claims = blobClaims(deps);
  const written: string[] = [];
  const checked: { path: string; outcome: Checked; order: number }[] = [];
  const duplicates: { path: string; sha: string }[] = [];
  let imageFiles = 0;
  const refuse = (name: string, key: ErrorName, vars?: ErrorVars) => results.push(refused(lang, name, key, vars));
  try {
    // Class lists (YOLO) may come after the label files: small text files wait for the end of the ZIP (bounded
    // by Limits.annotationFilesMaxBytes with the rest). JSON and XML are parsed as they arrive.
    const deferred: ZipText[] = [];
    const g = deps.config.gallery;
    const limits = { maxUncompressed: g.zipMaxUncompressedBytes, maxEntry: g.zipEntryMaxBytes, maxEntries: g.zipMaxEntries };
    // Images are checked (decoded for their thumbnail on libuv's pool) a few at a time while the ZIP goes on.
    const inFlight = new Set<Promise<void>>();
    const onImage = async (file: ReceivedFile) => {
      imageFiles += 1;
      if (imageFiles > Limits.uploadMaxFiles) {
        if (file.tempFile) await fs.promises.rm(file.tempFile, { force: true });
        fail('uploadTooManyFiles', { max: Limits.uploadMaxFiles });
      }
      const check = addImageFile(file).finally(() => inFlight.delete(check));
      inFlight.add(check);
      if (inFlight.size >= IMAGES_IN_FLIGHT) await Promise.race(inFlight);
    };
    const addImageFile = async (file: ReceivedFile, order = imageFiles) => {
      if (!file.tooLarge && file.bytes > 0) await claims.add(file.sha);
      const outcome = await checkImage(deps, model.id, file, written);
      if (!isRefusal(outcome)) checked.push({ path: file.name, outcome, order });
      else if (outcome.key === 'duplicateImage') duplicates.push({ path: file.name, sha: file.sha });
      else refuse(file.name, outcome.key, outcome.vars);
    };
    await readZip(
      zipFile,
      limits,
      (p) => (JUNK.test(p) ? null : IMAGE_FILE.test(p) ? 'file' : TEXT_FILE.test(p) ? 'text' : null),
      async (e) => {
        await breathe();
        if (/\.xml$/i.test(e.path)) await readXml(e, parsed);
        else if (/\.json$/i.test(e.path)) await readJson(e, parsed, classification, deferred);
        else deferred.push(e);
      },
      { tempPath: () => deps.blobs.tempPath(), onFile: onImage, maxFileBytes: g.imageMaxBytes },
    ).finally(() => Promise.allSettled(inFlight));
    await Promise.all(inFlight);
    // Checked in parallel, added in the ZIP's order (image ids follow it).
    checked.sort((a, b) => a.order - b.order);
    await readTexts(deferred, parsed, classification);

    // The images this import knows: the model's, then the ZIP's own (those already in the model by their bytes
    // are the model's image under the ZIP's path too).
    const targets = new Targets();
    const matcher = new ImageMatcher<Target>();
    const gallery = await deps.images.all(model.id);
    const byId = new Map(gallery.map((img) => [img.id, img]));
    for (const img of gallery) matcher.add(targets.of(img), img.name, [], true);
    const existingBySha = async (shas: string[]) => {
      if (shas.length === 0) return new Map<string, Image>();
      const rows = await deps.db.selectFrom('images').select(['id', 'sha256']).where('model_id', '=', model.id).where('sha256', 'in', [...new Set(shas)]).execute();
      return new Map(rows.flatMap((r) => (byId.has(r.id) ? [[r.sha256, byId.get(r.id)!] as const] : [])));
    };
    const dupes = await existingBySha(duplicates.map((d) => d.sha));
    for (const d of duplicates) {
      const img = dupes.get(d.sha);
      if (img) matcher.add(targets.of(img), d.path);
    }
    const freshBySha = new Map<string, Fresh>();
    const addFresh = (path: string, outcome: Checked, aliases: string[] = []) => {
      const known = freshBySha.get(outcome.file.sha);
      // The same bytes twice in the ZIP under two names: one image, which both names' annotations describe.
      if (known) refuse(path, 'duplicateImage');
      const fresh = known ?? { checked: outcome, name: cleanName(baseName(path)), split: splitFromPath(path) ?? null };
      freshBySha.set(outcome.file.sha, fresh);
      matcher.add(targets.ofFresh(fresh), path, aliases);
    };
    for (const c of checked) addFresh(c.path, c.outcome);
    // LabelMe imageData: only for images neither the model nor the ZIP has.
    for (const e of parsed.embedded) {
      const aliases = [...new Set([...parsed.annotations.filter((a) => a.entry === e.entry).map((a) => a.image), e.entry.replace(/\.json$/i, '')])];
      if ([e.name, ...aliases].some((r) => matcher.resolve(r))) continue;
      const file = await embeddedFile(deps, e.name, e.data);
      const before = duplicates.length;
      await addImageFile(file, Number.MAX_SAFE_INTEGER);
      const c = checked.find((x) => x.outcome.file === file);
      if (c) addFresh(file.name, c.outcome, aliases);
      else if (duplicates.length > before) {
        const img = (await existingBySha([file.sha])).get(file.sha);
        if (img) matcher.add(targets.of(img), file.name, aliases);
      }
    }
    if (gallery.length === 0 && freshBySha.size === 0) fail('annotationsBeforeImages');
    const ctx: StoreContext = { deps, model, lang, parsed, matcher, targets, fresh: [...freshBySha.values()], results };
    const answer = classification ? await storeClasses(ctx) : await storeShapes(ctx);
    await claims.release();
    return answer;
  } catch (e) {
    await claims.release();
    const stored = checked.map((c) => [c.outcome.file.sha, c.outcome.thumbSha]);
    const grouped = new Set(stored.flat());
    await removeBlobsIfUnused(deps, [...stored, ...written.filter((sha) => !grouped.has(sha))]);
    throw e;
  } finally {
    await fs.promises.rm(zipFile, { force: true });
  }
}

/** LabelMe imageData, written to a temp file as an upload would be; named by the bytes' kind when the name has none. */
async function embeddedFile(deps: Deps, name: string, data: Buffer): Promise<ReceivedFile> {
  const kind = sniffKind(data.subarray(0, 65_536));
  const ext = kind === 'jpeg' || kind === 'mpo' ? '.jpg' : kind ? `.${kind}` : '';
  const named = IMAGE_FILE.test(name) ? name : `${name.replace(/\.json$/i, '')}${ext}`;
  const tempFile = deps.blobs.tempPath();
  await fs.promises.writeFile(tempFile, data);
  return { name: named, tempFile, bytes: data.length, sha: createHash('sha256').update(data).digest('hex'), head: data.subarray(0, 65_536), tooLarge: false };
}

/** CVAT for images or Pascal VOC, parsed on the worker (fast-xml-parser reads a few MB/s: never on the event loop). */
async function readXml(e: ZipText, parsed: Parsed): Promise<void> {
  const text = e.data.toString('utf8');
  if (hasDoctype(text)) throw new AppError('xmlDoctype', { entry: e.path });
  const cvat = isCvat(text);
  if (!cvat && !isVoc(text)) return;
  const xml = await parseXml(e.data, Limits.annotationMaxDepth, cvat ? 'cvat' : 'voc').catch(() => ({ error: 'invalid' as const }));
  if ('error' in xml) return unreadable(e.path, xml.error, parsed);
  if (cvat) await parseCvat(e.path, xml.doc, parsed);
  else await parseVoc(e.path, xml.doc, parsed);
}

/** COCO, LabelMe, Datumaro, Label Studio, or (classification) a JSON class list; other JSON is not an annotation file. */
async function readJson(e: ZipText, parsed: Parsed, classification: boolean, deferred: ZipText[]): Promise<void> {
  const result = await parseJson(e.data, Limits.annotationMaxDepth).catch(() => ({ error: 'invalid' as const }));
  if ('error' in result) return unreadable(e.path, result.error, parsed);
  const json = result.doc;
  if (isCoco(json)) await parseCoco(e.path, json, parsed);
  else if (isLabelMe(json)) await parseLabelMe(e.path, json, parsed);
  else if (isDatumaro(json)) await parseDatumaro(e.path, json, parsed);
  else if (isLabelStudio(json)) await parseLabelStudio(e.path, json, parsed);
  else if (classification) deferred.push(e);
}

/** Text files, once the whole ZIP is read: class lists first, then YOLO, DOTA and classification lists. */
async function readTexts(files: ZipText[], parsed: Parsed, classification: boolean): Promise<void> {
  const texts = files.map((f) => ({ path: f.path, data: f.data, text: f.data.toString('utf8').replace(/^\uFEFF/, '') }));
  const classList = findClassList(texts.map((t) => ({ path: t.path, data: Buffer.from(t.text) })));
  for (const t of texts) {
    await breathe();
    if (classList && t.path === classList.entry) continue;
    if (classification && isClassList(t.path, t.text)) await parseClassList(t.path, t.text, parsed);
    else if (/\.txt$/i.test(t.path) && isDota(t.path, t.text)) await parseDota(t.path, t.text, parsed);
    else if (/\.txt$/i.test(t.path) && isYoloLabelFile(t.path, t.text)) await parseYolo(t.path, t.text, classList?.names ?? null, parsed, classList?.kpt);
  }
}

function unreadable(entry: string, why: 'deep' | 'invalid', parsed: Parsed): void {
  if (why === 'deep') parsed.problems.push({ entry, key: 'annotationTooDeep', vars: { entry, max: Limits.annotationMaxDepth } });
  else parsed.problems.push({ entry, key: 'annotationInvalid', vars: { entry } });
}

const targetName = (t: Target) => ('existing' in t ? t.existing.name : t.fresh.name);

interface Placed {
  entry: string;
  label: string;
  geometry: Geometry;
}

interface StoreContext {
  deps: Deps;
  model: Model;
  lang: Language;
  parsed: Parsed;
  matcher: ImageMatcher<Target>;
  targets: Targets;
  fresh: Fresh[];
  results: UploadResult[];
}

async function storeShapes({ deps, model, lang, parsed, matcher, fresh, results }: StoreContext): Promise<AnnotationImportData> {
  const report = new Report(parsed.files);
  reportProblems(parsed, report, lang, results);
  const sets = new Map<Target, Placed[]>();
  // Images a file describes, even with no shapes: their sets are replaced (emptied) too.
  for (const ref of parsed.images) {
    const r = matcher.resolve(ref);
    if (!r && results.length < PROBLEMS_SHOWN) results.push(refused(lang, ref, 'annotationNoImage', { name: ref }));
    if (r && 'targets' in r) for (const t of r.targets) if (!sets.has(t)) sets.set(t, []);
  }
  for (const c of parsed.classes) report.skip(c.entry, 'tag');
  // An image's shapes once: the same shape twice (one file listed twice, one image under two names) is one.
  const seenShapes = new Map<Target, Set<string>>();
  for (const [i, a] of parsed.annotations.entries()) {
    if (i % 1000 === 0) await breathe();
    const r = matcher.resolve(a.image);
    if (!r) {
      report.skip(a.entry, 'noImage', { name: a.image });
      continue;
    }
    if ('ambiguous' in r) {
      report.skip(a.entry, 'ambiguousImage', { name: a.image, candidates: r.ambiguous.map(targetName).slice(0, 5).join(', ') });
      continue;
    }
    if (!a.label.trim()) {
      report.skip(a.entry, 'noLabel');
      continue;
    }
    for (const t of r.targets) {
      const size = 'existing' in t ? t.existing : t.fresh.checked;
      const scaled = a.normalized ? { ...a, geometry: scaleGeometry(a.geometry, size), moreParts: a.moreParts?.map((p) => scaleGeometry(p, size)) } : a;
      const adapted = adaptToModel(scaled, model.type);
      for (const c of adapted.converted) report.convert(a.entry, c);
      if (a.difficult) report.convert(a.entry, 'difficultKept');
      let clamped = false;
      for (const g of adapted.shapes) {
        const fit = fitShape(g, size, model.min_annotation_area);
        if ('skipped' in fit) {
          report.skip(a.entry, fit.skipped, fit.skipped === 'tooSmall' ? { minArea: model.min_annotation_area } : {});
          continue;
        }
        clamped ||= fit.clamped;
        if (!sets.has(t)) sets.set(t, []);
        const key = canonical({ l: a.label.trim().toLowerCase(), g: fit.ok });
        const seen = seenShapes.get(t) ?? new Set<string>();
        seenShapes.set(t, seen);
        if (seen.has(key)) {
          report.skip(a.entry, 'duplicateShape');
          continue;
        }
        seen.add(key);
        sets.get(t)!.push({ entry: a.entry, label: a.label, geometry: fit.ok });
        report.taken(a.entry);
      }
      if (clamped) report.convert(a.entry, 'clamped');
    }
  }
  // More shapes on one image than the labeling studio allows would be refused there: that image is left as it was.
  const max = LabelingLimits.shapesPerImageMax;
  for (const [t, items] of sets) {
    if (items.length <= max) continue;
    sets.delete(t);
    results.push(refused(lang, targetName(t), 'annotationTooManyShapes', { image: targetName(t), max }));
    for (const p of items) {
      report.untake(p.entry, 1);
      report.skip(p.entry, 'tooManyShapes', { max });
    }
  }
  const usable = [...sets.values()].reduce((n, s) => n + s.length, 0);
  if (usable === 0 && fresh.length === 0) fail('noValidAnnotations', {}, { results: results.slice(0, PROBLEMS_SHOWN), report: report.render(lang) });

  const now = deps.now();
  let stored = 0;
  let created: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const labels = await ensureLabels(deps, trx, model.id, new Set([...sets.values()].flatMap((s) => s.map((p) => p.label))));
    created = labels.created;
    const failed = new Map(labels.problems.map((p) => [p.name.trim().toLowerCase(), p]));
    for (const p of labels.problems) {
      results.push(refused(lang, p.name, 'labelCreateFailed', { label: p.name, reason: errorMessage(lang, p.key, { field: 'name', max: deps.config.gallery.labelMax, ...p.vars }) }));
    }
    await insertFresh(deps, trx, model, fresh, now, new Map());
    for (const [t, items] of sets) {
      // SQLite answers synchronously: thousands of images in one go would hold the event loop. Other requests
      // run meanwhile; their queries wait for this transaction's connection (the driver's lock), as before.
      await breathe();
      const rows: { labelId: number; geometry: Geometry }[] = [];
      for (const p of items) {
        const labelId = labels.ids.get(p.label.trim().toLowerCase());
        if (labelId !== undefined) {
          rows.push({ labelId, geometry: p.geometry });
          continue;
        }
        const problem = failed.get(p.label.trim().toLowerCase());
        report.untake(p.entry, 1);
        report.skip(p.entry, 'labelFailed', { label: p.label, reason: problem ? errorMessage(lang, problem.key, { field: 'name', max: deps.config.gallery.labelMax, ...problem.vars }) : '' });
      }
      if ('fresh' in t && t.fresh.id === undefined) continue;
      const image = 'existing' in t ? t.existing : { id: t.fresh.id!, model_id: model.id, annotation_version: 0, class_label_id: null };
      await deps.annotations.replace(trx, image, rows, now);
      stored += rows.length;
    }
    await deps.models.bumpDataVersion(trx, model.id);
  });
  const added = fresh.filter((f) => f.id !== undefined).length;
  const formats = [...parsed.files.values()];
  const format = formats.length === 0 ? 'coco' : mostCommon(formats);
  return {
    format,
    imagesMatched: [...sets.keys()].filter((t) => 'existing' in t).length,
    imagesAdded: added,
    annotations: stored,
    skipped: report.skippedTotal(),
    labelsCreated: created,
    results: results.slice(0, PROBLEMS_SHOWN),
    report: report.render(lang),
  };
}

const mostCommon = <T>(xs: T[]): T => {
  const n = new Map<T, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  return [...n].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
};

/** The ZIP's images the model lacked, as rows (split from their folder: train/, valid/ or val/, test/). */
async function insertFresh(
  deps: Deps,
  trx: Kysely<DB>,
  model: Model,
  fresh: Fresh[],
  now: number,
  classOf: Map<Fresh, number>,
): Promise<void> {
  for (const f of fresh) {
    await breathe();
    const o = f.checked;
    const classLabel = model.multi_label === 1 ? null : (classOf.get(f) ?? null);
    const row: NewImage = {
      model_id: model.id,
      name: f.name,
      name_key: f.name.toLowerCase(),
      kind: o.kind,
      width: o.width,
      height: o.height,
      bytes: o.file.bytes,
      sha256: o.file.sha,
      thumb_sha: o.thumbSha,
      class_label_id: classLabel,
      labeled: classLabel === null ? 0 : 1,
      ...(f.split ? { split: f.split } : {}),
      created_at: now,
    };
    const id = await deps.images.insertUnlessDuplicate(trx, row);
    if (id !== null) f.id = id;
  }
}

async function storeClasses({ deps, model, lang, parsed, matcher, targets, fresh, results }: StoreContext): Promise<AnnotationImportData> {
  const FOLDERS = '(folders)';
  // Class folders only when no list or CVAT tags name the classes: with a list, "images/a.jpg" is not class "images".
  const byFolder = parsed.classes.length === 0;
  if (byFolder && fresh.length > 0) parsed.files.set(FOLDERS, 'folders');
  const report = new Report(parsed.files);
  reportProblems(parsed, report, lang, results);
  for (const a of parsed.annotations) report.skip(a.entry, 'unsupportedShape', { kind: a.geometry.kind });
  const classes = new Map<Target, { entry: string; labels: string[] }>();
  const give = (t: Target, entry: string, label: string) => {
    const c = classes.get(t) ?? { entry, labels: [] };
    if (!c.labels.some((l) => l.trim().toLowerCase() === label.trim().toLowerCase())) c.labels.push(label);
    classes.set(t, c);
  };
  let nested = 0;
  const negatives = new Set<Fresh>();
  if (byFolder) {
    for (const f of fresh) {
      const folder = classFromPath(f.checked.file.name);
      if (folder?.split) f.split = folder.split;
      // Loupe's own export: _unlabeled/ holds images without a class, _none/ a multi-label model's confirmed negatives.
      if (folder?.label) give(targets.ofFresh(f), FOLDERS, folder.label);
      else if (folder?.negative && model.multi_label === 1) negatives.add(f);
      else if (!folder && refKey(f.checked.file.name).includes('/')) nested += 1;
    }
  }
  for (const c of parsed.classes) {
    const r = matcher.resolve(c.image);
    if (!r) report.skip(c.entry, 'noImage', { name: c.image });
    else if ('ambiguous' in r) report.skip(c.entry, 'ambiguousImage', { name: c.image, candidates: r.ambiguous.map(targetName).slice(0, 5).join(', ') });
    else if (!c.label.trim()) report.skip(c.entry, 'noLabel');
    else for (const t of r.targets) give(t, c.entry, c.label);
  }
  const multi = model.multi_label === 1;
  for (const c of classes.values()) {
    if (!multi && c.labels.length > 1) {
      report.skip(c.entry, 'extraClass', {}, c.labels.length - 1);
      c.labels = c.labels.slice(0, 1);
    }
    report.taken(c.entry);
  }
  const unclassified = fresh.filter((f) => !classes.has(targets.ofFresh(f)) && !negatives.has(f)).length;
  if (nested > 0) report.skip(FOLDERS, 'nested', {}, nested);
  if (unclassified - nested > 0) report.skip(byFolder ? FOLDERS : [...parsed.files.keys()][0] ?? FOLDERS, 'noClass', {}, unclassified - nested);
  if (classes.size === 0 && fresh.length === 0) fail('noValidAnnotations', {}, { results: results.slice(0, PROBLEMS_SHOWN), report: report.render(lang) });

  const now = deps.now();
  let created: string[] = [];
  let stored = 0;
  await deps.db.transaction().execute(async (trx) => {
    const labels = await ensureLabels(deps, trx, model.id, new Set([...classes.values()].flatMap((c) => c.labels)));
    created = labels.created;
    const problemOf = (l: string) => labels.problems.find((p) => p.name.trim().toLowerCase() === l.trim().toLowerCase());
    const reasonOf = (l: string) => {
      const p = problemOf(l);
      return p ? errorMessage(lang, p.key, { field: 'name', max: deps.config.gallery.labelMax, ...p.vars }) : '';
    };
    for (const p of labels.problems) results.push(refused(lang, p.name, 'labelCreateFailed', { label: p.name, reason: reasonOf(p.name) }));
    const idOf = (l: string) => labels.ids.get(l.trim().toLowerCase());
    const classOf = new Map<Fresh, number>();
    for (const [t, c] of classes) {
      const id = idOf(c.labels[0]!);
      if ('fresh' in t && id !== undefined) classOf.set(t.fresh, id);
    }
    await insertFresh(deps, trx, model, fresh, now, classOf);
    for (const [t, c] of classes) {
      await breathe();
      const imageId = 'existing' in t ? t.existing.id : t.fresh.id;
      if (imageId === undefined) continue;
      for (const l of c.labels) if (idOf(l) === undefined) report.skip(c.entry, 'labelFailed', { label: l, reason: reasonOf(l) });
      const ids = [...new Set(c.labels.map(idOf).filter((x): x is number => x !== undefined))].sort((a, b) => a - b);
      if (ids.length === 0) {
        report.untake(c.entry, 1);
        continue;
      }
      if (multi) await replaceClassSet(trx, imageId, ids, false);
      else if ('existing' in t) await deps.images.setClass(trx, model.id, imageId, ids[0]!);
      stored += 1;
    }
    for (const f of negatives) if (f.id !== undefined) await replaceClassSet(trx, f.id, [], true);
    await deps.models.bumpDataVersion(trx, model.id);
  });
  const formats = [...parsed.files.values()];
  return {
    format: formats.length > 0 ? mostCommon(formats) : 'folders',
    imagesMatched: [...classes.keys()].filter((t) => 'existing' in t).length,
    imagesAdded: fresh.filter((f) => f.id !== undefined).length,
    annotations: stored,
    skipped: report.skippedTotal(),
    labelsCreated: created,
    results: results.slice(0, PROBLEMS_SHOWN),
    report: report.render(lang),
  };
}
