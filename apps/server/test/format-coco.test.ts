import { describe, expect, it } from 'vitest';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { cocoWriter, isCoco, parseCoco } from '../src/services/formats/coco.js';
import { decodeRle, decodeRleCrop, maskToPolygons, MaskError } from '../src/services/formats/mask.js';
import { emptyParsed, type ExportImage, type Parsed } from '../src/services/formats/types.js';
import { parseJson } from '../src/services/gallery/workers.js';

/**
 * COCO as the tools write it (issue 33): pycocotools masks, Roboflow's split folders, CVAT's instances_default.json,
 * Loupe's own rbox extension. Files go through the real JSON worker, so long lists arrive as Float64Arrays.
 */

/** pycocotools' rleEncode: column-major runs from 0s. */
function cocoCounts(mask: Uint8Array, h: number, w: number): number[] {
  const counts: number[] = [];
  let prev = 0;
  let run = 0;
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      const v = mask[y * w + x]!;
      if (v !== prev) {
        counts.push(run);
        run = 0;
        prev = v;
      }
      run++;
    }
  }
  counts.push(run);
  return counts;
}

/** pycocotools' rleToString (maskApi.c): deltas from the fourth count, 5-bit groups with a sign bit, + 48. */
function cocoString(counts: number[]): string {
  let s = '';
  for (let i = 0; i < counts.length; i++) {
    let x = counts[i]!;
    if (i > 2) x -= counts[i - 2]!;
    let more = true;
    while (more) {
      let c = x & 0x1f;
      x >>= 5;
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  }
  return s;
}

function draw(w: number, h: number, inside: (x: number, y: number) => boolean): Uint8Array {
  const m = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) m[y * w + x] = inside(x + 0.5, y + 0.5) ? 1 : 0;
  return m;
}
const pixels = (m: Uint8Array) => m.reduce((n, v) => n + v, 0);
const area = (pts: [number, number][]) => Math.abs(pts.reduce((s, [x, y], i) => s + x * pts[(i + 1) % pts.length]![1] - pts[(i + 1) % pts.length]![0] * y, 0)) / 2;
const pointsOf = (g: Geometry) => (g.kind === 'polygon' ? g.points : []);

async function parse(doc: unknown, entry = 'annotations.json', out: Parsed = emptyParsed()): Promise<Parsed> {
  const r = await parseJson(Buffer.from(JSON.stringify(doc)), 32);
  if (!('doc' in r) || !isCoco(r.doc)) throw new Error('not COCO');
  await parseCoco(entry, r.doc, out);
  return out;
}
const fields = (out: Parsed) => out.problems.map((p) => [p.vars?.field, p.vars?.expected]);
const coco = (annotations: unknown[], extra: Record<string, unknown> = {}) => ({
  images: [{ id: 1, file_name: 'a.jpg', width: 200, height: 100 }],
  categories: [{ id: 1, name: 'x', supercategory: '' }],
  annotations,
  ...extra,
});

describe('COCO variants', () => {
  it('is recognised with or without annotations, and LabelMe is not', () => {
    expect(isCoco({ images: [], categories: [], annotations: [] })).toBe(true);
    expect(isCoco({ images: [{ id: 0, file_name: 'a.jpg' }], categories: [] })).toBe(true);
    expect(isCoco({ images: [], categories: [], annotations: {} })).toBe(false);
    expect(isCoco({ version: '5.4.1', shapes: [], imagePath: 'a.jpg' })).toBe(false);
  });

  it('keeps every part of a multi-part polygon and leaves out two-point slivers', async () => {
    const long = Array.from({ length: 20 }, (_, i) => [100 + 20 * Math.cos(i / 3.18), 50 + 20 * Math.sin(i / 3.18)]).flat();
    const out = await parse(coco([{ id: 1, image_id: 1, category_id: 1, segmentation: [[1, 1, 10, 1, 10, 10], long, [20, 20, 30, 20], [40, 40, 50, 40, 50, 50, 40, 50]], area: 1, bbox: [1, 1, 49, 49], iscrowd: 0 }]));
    expect(out.problems).toEqual([]);
    expect(out.annotations).toHaveLength(1);
    const a = out.annotations[0]!;
    expect(a).toMatchObject({ entry: 'annotations.json', image: 'a.jpg', label: 'x', geometry: { kind: 'polygon', points: [[1, 1], [10, 1], [10, 10]] } });
    expect(a.moreParts?.map((p) => pointsOf(p).length)).toEqual([20, 4]);
    expect(a.converted).toBeUndefined();
    expect(out.files.get('annotations.json')).toBe('coco');
  });

  it('decodes compressed and uncompressed RLE exactly, column-major as pycocotools writes it', () => {
    const h = 37;
    const w = 53;
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const mask = draw(w, h, (x, y) => (x < 20 && y < 5) || rand() < 0.3);
    const counts = cocoCounts(mask, h, w);
    expect(decodeRle({ size: [h, w], counts })).toEqual(mask);
    expect(decodeRle({ size: [h, w], counts: cocoString(counts) })).toEqual(mask);
    // Runs longer than 32 and deltas that go negative use several groups and the sign bit.
    const big = draw(300, 200, (x, y) => (x - 150) ** 2 + (y - 100) ** 2 < 80 ** 2 || x < 3);
    expect(decodeRle({ size: [200, 300], counts: cocoString(cocoCounts(big, 200, 300)) })).toEqual(big);
  });

  it('crops a decoded mask to its pixels exactly as the full decode holds them', async () => {
    for (const [w, h, inside] of [
      [40, 30, (x: number, y: number) => x > 10 && x < 14 && y > 5 && y < 9],
      [40, 30, (x: number, y: number) => (x > 10 && x < 30 && y > 20) || (x > 25 && x < 27 && y < 3)],
      [7, 50, (x: number, y: number) => y > 45 || x < 1],
    ] as const) {
      const full = draw(w, h, inside);
      const counts = cocoCounts(full, h, w);
      const crop = (await decodeRleCrop({ size: [h, w], counts: cocoString(counts) }))!;
      const xs = [...full.keys()].filter((i) => full[i]).map((i) => i % w);
      const ys = [...full.keys()].filter((i) => full[i]).map((i) => Math.floor(i / w));
      expect([crop.left, crop.top, crop.w, crop.h]).toEqual([Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs) + 1, Math.max(...ys) - Math.min(...ys) + 1]);
      for (let y = 0; y < crop.h; y++) for (let x = 0; x < crop.w; x++) expect(crop.mask[y * crop.w + x]).toBe(full[(y + crop.top) * w + x + crop.left]);
    }
    expect(await decodeRleCrop({ size: [10, 10], counts: [100] })).toBeNull();
  });

  it('traces a compressed RLE mask into one polygon per island, largest first, specks left out', async () => {
    const w = 200;
    const h = 100;
    const mask = draw(w, h, (x, y) => (x - 60) ** 2 + (y - 50) ** 2 < 35 ** 2 || (x > 120 && x < 180 && y > 20 && y < 50) || (x > 190 && x < 192 && y < 1));
    const out = await parse(coco([{ id: 1, image_id: 1, category_id: 1, segmentation: { size: [h, w], counts: cocoString(cocoCounts(mask, h, w)) }, area: 0, bbox: [25, 15, 155, 70], iscrowd: 0 }]));
    expect(out.problems).toEqual([]);
    const a = out.annotations[0]!;
    expect(a.converted).toBe('maskToPolygon');
    expect(a.moreParts).toHaveLength(1);
    const disk = draw(w, h, (x, y) => (x - 60) ** 2 + (y - 50) ** 2 < 35 ** 2);
    expect(Math.abs(area(pointsOf(a.geometry)) - pixels(disk)) / pixels(disk)).toBeLessThan(0.03);
    expect(area(pointsOf(a.moreParts![0]!))).toBe(60 * 30);
    expect(pointsOf(a.moreParts![0]!)).toEqual(expect.arrayContaining([[120, 20], [180, 50]]));
  });

  it('reads an uncompressed crowd mask (iscrowd 1, counts as numbers)', async () => {
    const mask = draw(200, 100, (x, y) => x > 10 && x < 90 && y > 10 && y < 60);
    const out = await parse(coco([{ id: 1, image_id: 1, category_id: 1, segmentation: { size: [100, 200], counts: cocoCounts(mask, 100, 200) }, area: 0, bbox: [11, 11, 79, 49], iscrowd: 1 }]));
    expect(out.annotations[0]).toMatchObject({ converted: 'maskToPolygon', geometry: { kind: 'polygon' } });
    expect(area(pointsOf(out.annotations[0]!.geometry))).toBe(pixels(mask));
  });

  it('falls back to the bbox when a mask or polygon list is empty, and names the field when there is none', async () => {
    const empty = { size: [100, 200], counts: [20_000] };
    const out = await parse(coco([
      { id: 1, image_id: 1, category_id: 1, segmentation: empty, bbox: [1, 2, 3, 4], iscrowd: 1 },
      { id: 2, image_id: 1, category_id: 1, segmentation: [], bbox: [5, 6, 7, 8], iscrowd: 0 },
      { id: 3, image_id: 1, category_id: 1, segmentation: empty, iscrowd: 1 },
    ]));
    expect(out.annotations.map((a) => a.geometry)).toEqual([
      { kind: 'box', x1: 1, y1: 2, x2: 4, y2: 6 },
      { kind: 'box', x1: 5, y1: 6, x2: 12, y2: 14 },
    ]);
    expect(fields(out)).toEqual([['annotations[2].segmentation', 'rle']]);
  });

  it('takes ids from 0 and string ids, keeps folders and extension-less names, lists images without shapes', async () => {
    const out = await parse({
      images: [
        { id: 0, file_name: 'train/img/0001.jpg', width: 10, height: 10 },
        { id: 'b', file_name: 'scan_17', width: 10, height: 10 },
        { id: 2, file_name: 'empty.png', width: 10, height: 10 },
      ],
      categories: [{ id: 0, name: 'cat' }, { id: 'dog', name: 'dog' }, { id: 7, name: 1234 }],
      annotations: [
        { id: 0, image_id: 0, category_id: 0, bbox: [1, 1, 2, 2] },
        { id: 1, image_id: 'b', category_id: 'dog', bbox: [1, 1, 2, 2] },
        { id: 2, image_id: '0', category_id: 7, bbox: [1, 1, 2, 2] },
      ],
    });
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['train/img/0001.jpg', 'scan_17', 'empty.png']);
    expect(out.annotations.map((a) => [a.image, a.label])).toEqual([['train/img/0001.jpg', 'cat'], ['scan_17', 'dog'], ['train/img/0001.jpg', '1234']]);
  });

  it('reads images and categories without an annotations key', async () => {
    const out = await parse({ images: [{ id: 1, file_name: 'a.jpg' }, { id: 2, file_name: 'b.jpg' }], categories: [{ id: 1, name: 'x' }] });
    expect(out.problems).toEqual([]);
    expect(out.annotations).toEqual([]);
    expect(out.images.size).toBe(2);
  });

  it('takes OCR text from text, attributes.text and attributes.ocr', async () => {
    const out = await parse(coco([
      { id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], text: 'LOT 42' },
      { id: 2, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], attributes: { occluded: false, text: 'Ünïcode 12' } },
      { id: 3, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], attributes: { ocr: 'B-7' } },
      { id: 4, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], attributes: { occluded: false } },
    ]));
    expect(out.annotations.map((a) => a.geometry.text)).toEqual(['LOT 42', 'Ünïcode 12', 'B-7', undefined]);
  });

  it('reads Loupe rotated boxes from rbox before the polygon beside it', async () => {
    const out = await parse(coco([{ id: 1, image_id: 1, category_id: 1, bbox: [0, 0, 10, 10], segmentation: [[0, 0, 10, 0, 10, 10, 0, 10]], rbox: [50, 40, 30, 10, 120] }]));
    expect(out.annotations[0]!.geometry).toEqual({ kind: 'rbox', cx: 50, cy: 40, w: 30, h: 10, angle: 120 });
  });

  it('skips keypoints by reason: keypoint-only annotations as points, a box with keypoints keeps its box', async () => {
    const kp = [10, 10, 2, 20, 20, 2, 0, 0, 0];
    const out = await parse(coco([
      { id: 1, image_id: 1, category_id: 1, keypoints: kp, num_keypoints: 2 },
      { id: 2, image_id: 1, category_id: 1, keypoints: kp, num_keypoints: 2, segmentation: [] },
      { id: 3, image_id: 1, category_id: 1, keypoints: kp, num_keypoints: 2, bbox: [5, 5, 20, 20] },
    ]));
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => a.geometry.kind)).toEqual(['box']);
    expect(out.skips.map((s) => [s.reason, s.count])).toEqual([['point', 1], ['point', 1], ['point', 1]]);
  });

  it('parses Roboflow split files independently: the same ids mean different images per file', async () => {
    const split = (name: string) => ({
      info: { year: '2025', version: '3', description: 'Exported from roboflow.com' },
      licenses: [{ id: 1, url: 'https://creativecommons.org/licenses/by/4.0/', name: 'CC BY 4.0' }],
      categories: [{ id: 0, name: 'parts', supercategory: 'none' }, { id: 1, name: 'screw', supercategory: 'parts' }],
      images: [{ id: 0, license: 1, file_name: `${name}.rf.abc123.jpg`, height: 640, width: 640, date_captured: '2025-01-01T00:00:00+00:00' }],
      annotations: [{ id: 0, image_id: 0, category_id: 1, bbox: [10, 20, 30.5, 40], area: 1220, segmentation: [], iscrowd: 0 }],
    });
    const out = emptyParsed();
    await parse(split('train1'), 'train/_annotations.coco.json', out);
    await parse(split('valid1'), 'valid/_annotations.coco.json', out);
    expect(out.annotations.map((a) => [a.entry, a.image, a.label])).toEqual([
      ['train/_annotations.coco.json', 'train1.rf.abc123.jpg', 'screw'],
      ['valid/_annotations.coco.json', 'valid1.rf.abc123.jpg', 'screw'],
    ]);
    expect([...out.files.keys()]).toEqual(['train/_annotations.coco.json', 'valid/_annotations.coco.json']);
  });

  it("reads CVAT's COCO export: attributes, empty polygons with a bbox, crowd masks as uncompressed RLE", async () => {
    const mask = draw(64, 48, (x, y) => x > 8 && x < 40 && y > 4 && y < 30);
    const doc = {
      licenses: [{ name: '', id: 0, url: '' }],
      info: { contributor: '', date_created: '', description: '', url: '', version: '', year: '' },
      categories: [{ id: 1, name: 'bolt', supercategory: '' }, { id: 2, name: 'Mutter', supercategory: '' }],
      images: [{ id: 1, width: 64, height: 48, file_name: 'frames/frame_000000.PNG', license: 0, flickr_url: '', coco_url: '', date_captured: 0 }],
      annotations: [
        { id: 1, image_id: 1, category_id: 1, segmentation: [[9.5, 5.2, 30.1, 5.2, 30.1, 20.7]], area: 160.0, bbox: [9.5, 5.2, 20.6, 15.5], iscrowd: 0, attributes: { occluded: false } },
        { id: 2, image_id: 1, category_id: 2, segmentation: [], area: 40.0, bbox: [1.0, 2.0, 8.0, 5.0], iscrowd: 0, attributes: { occluded: false, rotation: 0.0 } },
        { id: 3, image_id: 1, category_id: 1, segmentation: { counts: cocoCounts(mask, 48, 64), size: [48, 64] }, area: pixels(mask), bbox: [9, 5, 31, 25], iscrowd: 1, attributes: { occluded: false } },
      ],
    };
    const out = await parse(doc, 'annotations/instances_default.json');
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => [a.geometry.kind, a.label, a.converted ?? ''])).toEqual([['polygon', 'bolt', ''], ['box', 'Mutter', ''], ['polygon', 'bolt', 'maskToPolygon']]);
    expect(area(pointsOf(out.annotations[2]!.geometry))).toBe(pixels(mask));
    expect([...out.images]).toEqual(['frames/frame_000000.PNG']);
  });
});

describe('mask tracing', () => {
  it('joins diagonal neighbours (8-connected), fills holes, and keeps within maxPoints', async () => {
    const diag = draw(10, 10, (x, y) => (x < 2 && y < 2) || (x > 2 && x < 4 && y > 2 && y < 4) || (x > 2 && x < 4 && y > 1 && y < 3) || (x > 1 && x < 3 && y > 1 && y < 3));
    expect(await maskToPolygons(diag, 10, 10, 100)).toHaveLength(1);
    const ring = draw(50, 50, (x, y) => (x - 25) ** 2 + (y - 25) ** 2 < 20 ** 2 && (x - 25) ** 2 + (y - 25) ** 2 > 10 ** 2);
    const [outline, ...rest] = await maskToPolygons(ring, 50, 50, 1000);
    expect(rest).toEqual([]);
    const filled = pixels(draw(50, 50, (x, y) => (x - 25) ** 2 + (y - 25) ** 2 < 20 ** 2));
    expect(Math.abs(area(outline!) - filled) / filled).toBeLessThan(0.03);
    const gear = draw(400, 400, (x, y) => Math.hypot(x - 200, y - 200) < 150 + 20 * Math.sign(Math.sin(Math.atan2(y - 200, x - 200) * 90)));
    const [teeth] = await maskToPolygons(gear, 400, 400, 64);
    expect(teeth!.length).toBeLessThanOrEqual(64);
    expect(teeth!.length).toBeGreaterThanOrEqual(3);
  });

  it('stays within about a pixel of a disk and leaves the mask as it was', async () => {
    const mask = draw(300, 300, (x, y) => Math.hypot(x - 150, y - 150) < 100);
    const copy = mask.slice();
    const [outline] = await maskToPolygons(mask, 300, 300, LabelingLimits.polygonPointsMax);
    expect(mask).toEqual(copy);
    for (const [x, y] of outline!) expect(Math.abs(Math.hypot(x - 150, y - 150) - 100)).toBeLessThan(1.5);
    expect(outline!.length).toBeLessThan(200);
  });

  it('decodes and traces a 2000 × 2000 mask well under a second', async () => {
    const w = 2000;
    const h = 2000;
    const mask = draw(w, h, (x, y) => Math.hypot(x - 1000, y - 1000) < 900 || (x % 97 < 5 && y % 89 < 5));
    const rle = cocoString(cocoCounts(mask, h, w));
    const t0 = performance.now();
    const decoded = decodeRle({ size: [h, w], counts: rle });
    const polygons = await maskToPolygons(decoded, w, h, LabelingLimits.polygonPointsMax);
    const ms = performance.now() - t0;
    expect(polygons.length).toBeGreaterThan(10);
    expect(ms).toBeLessThan(1000);
  });

  it('refuses sizes over 100 megapixels, counts that do not sum, and strings that are not RLE', () => {
    expect(() => decodeRle({ size: [20_000, 20_000], counts: [400_000_000] })).toThrow(MaskError);
    expect(() => decodeRle({ size: [10, 10], counts: [50, 49] })).toThrow(MaskError);
    expect(() => decodeRle({ size: [10, 10], counts: [50, -1, 51] })).toThrow(MaskError);
    expect(() => decodeRle({ size: [10, 10], counts: 'not rle ~~~' })).toThrow(MaskError);
    expect(() => decodeRle({ size: [10, NaN] as [number, number], counts: [] })).toThrow(MaskError);
  });
});

describe('malformed COCO files name the place and what was expected', () => {
  const bad = async (annotations: unknown[], extra: Record<string, unknown> = {}) => {
    const out = emptyParsed();
    await parseCoco('c.json', coco(annotations, extra) as never, out);
    return out;
  };

  it.each([
    ['an annotation as null', [null], {}, ['annotations[0]', 'object']],
    ['an image as null', [], { images: [null] }, ['images[0]', 'object']],
    ['a category without a name', [], { categories: [{ id: 1 }] }, ['categories[0].name', 'text']],
    ['an image id that is an object', [], { images: [{ id: { n: 1 }, file_name: 'a.jpg' }] }, ['images[0].id', 'number']],
    ['an image without file_name', [], { images: [{ id: 1, file_name: ' ' }] }, ['images[0].file_name', 'text']],
    ['bbox of strings', [{ image_id: 1, category_id: 1, bbox: ['1', '2', '3', '4'] }], {}, ['annotations[0].bbox', 'bbox']],
    ['a negative width', [{ image_id: 1, category_id: 1, bbox: [50, 2, -30, 4] }], {}, ['annotations[0].bbox', 'bbox']],
    ['a NaN coordinate', [{ image_id: 1, category_id: 1, bbox: [NaN, 2, 3, 4] }], {}, ['annotations[0].bbox', 'bbox']],
    ['a 1e300 coordinate', [{ image_id: 1, category_id: 1, bbox: [1e300, 2, 3, 4] }], {}, ['annotations[0].bbox', 'bbox']],
    ['no shape at all', [{ image_id: 1, category_id: 1 }], {}, ['annotations[0].bbox', 'bbox']],
    ['an unknown category', [{ image_id: 1, category_id: 9, bbox: [1, 2, 3, 4] }], {}, ['annotations[0].category_id', 'categoryRef']],
    ['an unknown image', [{ image_id: 0, category_id: 1, bbox: [1, 2, 3, 4] }], {}, ['annotations[0].image_id', 'imageRef']],
    ['a polygon with a null vertex', [{ image_id: 1, category_id: 1, segmentation: [[1, 2, 30, 2, null, 40]] }], {}, ['annotations[0].segmentation', 'flatPoints']],
    ['a polygon with an odd count', [{ image_id: 1, category_id: 1, segmentation: [[1, 2, 30, 2, 40]] }], {}, ['annotations[0].segmentation', 'flatPoints']],
    ['only two-point slivers and no bbox', [{ image_id: 1, category_id: 1, segmentation: [[1, 2, 3, 4]] }], {}, ['annotations[0].segmentation', 'flatPoints']],
    ['segmentation as a string', [{ image_id: 1, category_id: 1, segmentation: 'M 1 2', bbox: [1, 2, 3, 4] }], {}, ['annotations[0].segmentation', 'flatPoints']],
    ['RLE counts that do not sum', [{ image_id: 1, category_id: 1, segmentation: { size: [10, 10], counts: [50, 10] }, bbox: [1, 2, 3, 4] }], {}, ['annotations[0].segmentation', 'rle']],
    ['an RLE over 100 megapixels', [{ image_id: 1, category_id: 1, segmentation: { size: [1e5, 1e5], counts: [1e10] } }], {}, ['annotations[0].segmentation', 'rle']],
    ['an RLE without size', [{ image_id: 1, category_id: 1, segmentation: { counts: 'PPYo0' } }], {}, ['annotations[0].segmentation', 'rle']],
    ['an rbox with a string', [{ image_id: 1, category_id: 1, rbox: [1, 2, 3, '4', 0] }], {}, ['annotations[0].rbox', 'number']],
    ['annotations as an object', [], { annotations: {} }, ['annotations', 'list']],
  ] as const)('%s', async (_, annotations, extra, expected) => {
    const out = await bad([...annotations], extra);
    expect(out.annotations).toEqual([]);
    expect(fields(out)).toEqual([expected]);
    expect(out.problems[0]).toMatchObject({ entry: 'c.json', key: 'annotationBadField', vars: { entry: 'c.json' } });
  });

  it('refuses a polygon over the vertex limit and keeps the good shapes beside the bad', async () => {
    const many = Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => [i % 200, i % 100]).flat();
    const out = await bad([{ image_id: 1, category_id: 1, segmentation: [many] }, { image_id: 1, category_id: 1, bbox: [1, 2, 3, 4] }, { image_id: 1, category_id: 1, bbox: [1, 2, 3] }]);
    expect(out.problems.map((p) => p.key)).toEqual(['annotationTooManyPoints', 'annotationBadField']);
    expect(out.annotations).toHaveLength(1);
  });
});

describe('COCO round trip', () => {
  it('writes and reads back boxes, rotated boxes at several angles, polygons, OCR text and non-ASCII labels', async () => {
    const labels = ['Schraube', 'ナット', 'x & "y" <z>'];
    const shapes: { label: string; labelIndex: number; geometry: Geometry }[] = [
      { label: labels[0]!, labelIndex: 0, geometry: { kind: 'box', x1: 1.25, y1: 2.5, x2: 30.125, y2: 40 } },
      ...[0, 30, 135, 300, -45].map((angle) => ({ label: labels[1]!, labelIndex: 1, geometry: { kind: 'rbox', cx: 100.5, cy: 50.25, w: 40, h: 12.5, angle } as Geometry })),
      { label: labels[2]!, labelIndex: 2, geometry: { kind: 'polygon', points: [[10, 10], [60.5, 12], [40, 70.75]], text: 'Größe 7' } },
      { label: labels[0]!, labelIndex: 0, geometry: { kind: 'box', x1: 5, y1: 5, x2: 25, y2: 15, text: 'LOT-42' } },
    ];
    const images: ExportImage[] = [
      { file: 'a.jpg', width: 200, height: 100, annotations: shapes },
      { file: 'empty.jpg', width: 200, height: 100, annotations: [] },
    ];
    const [file] = cocoWriter.files(images, labels);
    expect(file!.path).toBe('annotations.json');
    const out = await parse(JSON.parse(file!.data.toString('utf8')));
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['a.jpg', 'empty.jpg']);
    expect(out.annotations).toHaveLength(shapes.length);
    for (const [i, a] of out.annotations.entries()) {
      const want = shapes[i]!;
      expect(a.label).toBe(want.label);
      expect(a.geometry.kind).toBe(want.geometry.kind);
      expect(a.geometry.text).toBe(want.geometry.text);
      const got = a.geometry as Record<string, unknown>;
      for (const [k, v] of Object.entries(want.geometry)) {
        if (typeof v === 'number') expect(Math.abs((got[k] as number) - v)).toBeLessThan(0.01);
        if (k === 'points') (v as [number, number][]).forEach((p, j) => p.forEach((c, d) => expect(Math.abs((got.points as number[][])[j]![d]! - c)).toBeLessThan(0.01)));
      }
    }
    // Other tools read the rotated box's corners from the segmentation and its bounds from bbox.
    const written = JSON.parse(file!.data.toString('utf8')) as { annotations: { segmentation: number[][]; bbox: number[] }[] };
    expect(written.annotations[2]!.segmentation[0]).toHaveLength(8);
    expect(written.annotations[1]!.bbox).toEqual([80.5, 44, 40, 12.5]);
  });
});
