import { PassThrough, type Readable } from 'node:stream';
import yazl from 'yazl';
import type { ExportFormat, Geometry, Split } from '@loupe/contracts';
import { classSets } from '../../db/image-classes.js';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';
import { cocoWriter } from './coco.js';
import { cvatWriter } from './cvat.js';
import { datumaroWriter } from './datumaro.js';
import { dotaWriter } from './dota.js';
import { labelMeWriter } from './labelme.js';
import { labelStudioWriter } from './labelstudio.js';
import { vocWriter } from './voc.js';
import { yoloWriter } from './yolo.js';
import { stemOf, type ExportImage, type Writer } from './types.js';

/**
 * Every format the import reads is written too (issue 33), so a dataset round-trips through any of them.
 * The web offers a model type the formats that hold its shapes without loss (contracts exportFormatsFor);
 * the others still export what they can (DOTA writes a polygon as its smallest rotated box).
 */
const writers: Record<ExportFormat, Writer> = { coco: cocoWriter, voc: vocWriter, yolo: yoloWriter, labelme: labelMeWriter, dota: dotaWriter, cvat: cvatWriter, labelstudio: labelStudioWriter, datumaro: datumaroWriter };

/** One file name per image inside the ZIP; two images with the same stem would overwrite each other's labels. */
function uniqueFile(name: string, id: number, stems: Set<string>): string {
  const stem = stemOf(name).toLowerCase();
  if (!stems.has(stem)) {
    stems.add(stem);
    return name;
  }
  const unique = `${id}_${name}`;
  stems.add(stemOf(unique).toLowerCase());
  return unique;
}

/**
 * The dataset as a ZIP (SPEC /download/downloadImage): original images plus annotations in the chosen
 * format, streamed (images are read from the blob store as the ZIP is written). Classification models
 * export `<label>/<image>` folders, the layout the folder upload reads back; a multi-label image is in the
 * folder of each of its classes (and a confirmed negative in `_none`).
 */
export async function exportDataset(deps: Deps, model: Model, format: ExportFormat, split?: Split): Promise<Readable> {
  const images = await deps.images.all(model.id, split);
  const labels = await deps.labels.list(model.id);
  const labelIndex = new Map(labels.map((l, i) => [l.id, i]));
  const zip = new yazl.ZipFile();
  const out = new PassThrough();
  // A blob that cannot be read (deleted since the list was read, S3 unreachable) ends the download with an error.
  const abort = (e: unknown) => out.destroy(e instanceof Error ? e : new Error(String(e)));
  zip.on('error', abort);
  const addImage = (path: string, img: { sha256: string; created_at: number | string | bigint }) =>
    // Opened only when the ZIP reaches the entry: one open stream at a time, whatever the store (fs or S3).
    // Images are already compressed: storing them saves CPU and changes nothing in size.
    zip.addReadStreamLazy(path, { compress: false, mtime: new Date(Number(img.created_at)) }, (cb) => {
      deps.blobs.open(img.sha256).then((stream) => cb(null, stream.on('error', abort)), (e: unknown) => cb(e, undefined as never));
    });
  if (model.type === 'classification') {
    const nameOf = new Map(labels.map((l) => [l.id, l.name.replace(/[/\\]/g, '_')]));
    const used = new Set<string>();
    // Multi-label: an image goes into the folder of each of its classes, a confirmed negative into _none.
    const sets = model.multi_label === 1 ? await classSets(deps.db, images.map((i) => i.id)) : null;
    for (const img of images) {
      const classes = sets ? (sets.get(img.id) ?? []) : img.class_label_id !== null ? [img.class_label_id] : [];
      const folders = classes.length > 0 ? classes.map((id) => nameOf.get(id)!) : [sets && img.no_class === 1 ? '_none' : '_unlabeled'];
      for (const folder of folders) {
        let path = `${folder}/${img.name}`;
        if (used.has(path.toLowerCase())) path = `${folder}/${img.id}_${img.name}`;
        used.add(path.toLowerCase());
        addImage(path, img);
      }
    }
  } else {
    const writer = writers[format];
    const byImage = new Map<number, ExportImage['annotations']>();
    for (const a of await deps.annotations.current(images.map((i) => i.id))) {
      const idx = labelIndex.get(a.label_id);
      if (idx === undefined) continue;
      if (!byImage.has(a.image_id)) byImage.set(a.image_id, []);
      byImage.get(a.image_id)!.push({ label: labels[idx]!.name, labelIndex: idx, geometry: JSON.parse(a.geometry) as Geometry });
    }
    const stems = new Set<string>();
    const exported: ExportImage[] = images.map((img) => {
      const file = uniqueFile(img.name, img.id, stems);
      addImage(`${writer.imageDir}${file}`, img);
      return { file, width: img.width, height: img.height, annotations: byImage.get(img.id) ?? [] };
    });
    for (const f of writer.files(exported, labels.map((l) => l.name))) zip.addBuffer(f.data, f.path);
  }
  zip.end();
  zip.outputStream.on('error', abort).pipe(out);
  return out;
}
