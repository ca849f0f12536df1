import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import yazl from 'yazl';
import yauzl from 'yauzl';

/**
 * Fixtures the dataset spec draws itself: small JPEGs with coloured rectangles, the Pascal VOC ZIP describing
 * them, files that are not images, and ZIP reading/writing. Everything is written into a folder the spec owns.
 */

export const LABELS = ['scratch', 'dent'] as const;
export type LabelName = (typeof LABELS)[number];

export const WIDTH = 160;
export const HEIGHT = 120;

export interface DrawnBox {
  label: LabelName;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface DrawnImage {
  name: string;
  file: string;
  boxes: DrawnBox[];
}

const COLOURS: Record<LabelName, { r: number; g: number; b: number }> = {
  scratch: { r: 220, g: 30, b: 30 },
  dent: { r: 30, g: 60, b: 220 },
};

/** The rectangles of image i: one or two, both labels across the set, positions differing image to image. */
export function boxesOf(i: number): DrawnBox[] {
  const first: DrawnBox = { label: LABELS[i % 2]!, x1: 8 + (i % 7) * 4, y1: 10 + (i % 5) * 3, x2: 0, y2: 0 };
  first.x2 = first.x1 + 30 + (i % 4) * 5;
  first.y2 = first.y1 + 25 + (i % 3) * 4;
  const boxes = [first];
  if (i % 3 === 0) {
    const x1 = 95 + (i % 6) * 3;
    const y1 = 60 + (i % 4) * 4;
    boxes.push({ label: LABELS[(i + 1) % 2]!, x1, y1, x2: x1 + 40, y2: y1 + 30 });
  }
  return boxes;
}

/** A JPEG of WIDTH×HEIGHT: a background tinted per image plus its rectangles. */
export async function drawJpeg(i: number, boxes: DrawnBox[]): Promise<Buffer> {
  const background = { r: 200 - (i * 3) % 120, g: 210 - (i * 7) % 100, b: 150 + (i * 5) % 100 };
  const overlays = await Promise.all(
    boxes.map(async (b) => ({
      input: await sharp({ create: { width: b.x2 - b.x1, height: b.y2 - b.y1, channels: 3, background: COLOURS[b.label] } })
        .png()
        .toBuffer(),
      left: b.x1,
      top: b.y1,
    })),
  );
  return sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background } })
    .composite(overlays)
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** `count` distinct images written into `dir` as part-00.jpg, part-01.jpg… */
export async function drawImages(dir: string, count: number): Promise<DrawnImage[]> {
  const out: DrawnImage[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `part-${String(i).padStart(2, '0')}.jpg`;
    const boxes = boxesOf(i);
    const file = path.join(dir, name);
    writeFileSync(file, await drawJpeg(i, boxes));
    out.push({ name, file, boxes });
  }
  return out;
}

function vocXml(img: DrawnImage): string {
  const objects = img.boxes
    .map(
      (b) => `  <object>
    <name>${b.label}</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <difficult>0</difficult>
    <bndbox><xmin>${b.x1}</xmin><ymin>${b.y1}</ymin><xmax>${b.x2}</xmax><ymax>${b.y2}</ymax></bndbox>
  </object>`,
    )
    .join('\n');
  return `<annotation>
  <folder>images</folder>
  <filename>${img.name}</filename>
  <size><width>${WIDTH}</width><height>${HEIGHT}</height><depth>3</depth></size>
  <segmented>0</segmented>
${objects}
</annotation>
`;
}

/** A ZIP of named buffers. */
export function zipOf(entries: { path: string; data: Buffer }[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const e of entries) zip.addBuffer(e.data, e.path);
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
    zip.end();
  });
}

/** Pascal VOC: one XML per image in Annotations/, named after the image. */
export async function writeVocZip(file: string, images: DrawnImage[]): Promise<void> {
  const entries = images.map((img) => ({
    path: `Annotations/${img.name.replace(/\.jpg$/, '.xml')}`,
    data: Buffer.from(vocXml(img)),
  }));
  writeFileSync(file, await zipOf(entries));
}

/** Every entry of a ZIP file, by path. */
export function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** A .jpg that is plain text: no image magic number at all. */
export function writeTextAsJpeg(file: string): void {
  writeFileSync(file, 'These are inspection notes, not a picture.\n'.repeat(20));
}

/** A .jpg that starts like a JPEG (SOI + APP0 marker) and then is garbage: it cannot be read as an image. */
export function writeBrokenJpeg(file: string): void {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  writeFileSync(file, Buffer.concat([head, Buffer.from('not really a jpeg '.repeat(40))]));
}
