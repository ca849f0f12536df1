import { describe, expect, it } from 'vitest';
import type { Geometry } from '@loupe/contracts';
import { datumaroWriter, isDatumaro, parseDatumaro } from '../src/services/formats/datumaro.js';
import { emptyParsed, type ExportImage, type Parsed } from '../src/services/formats/types.js';
import { parseJson } from '../src/services/gallery/workers.js';

/**
 * Datumaro JSON as `datum export -f datumaro` (1.x: dm_format_version, media_type, infos) and CVAT's "Datumaro 1.0"
 * export write it: annotation fields in the exporter's order (id, type, attributes, group, label_id, …, z_order),
 * numbers as Python floats, CVAT's occluded and rotation attributes on every shape, masks as pycocotools RLE.
 * Files go through the real JSON worker, so long lists arrive as Float64Arrays.
 */

/** pycocotools' rleEncode: column-major runs from 0s. */
function rleCounts(mask: Uint8Array, h: number, w: number): number[] {
  const counts: number[] = [];
  let [prev, run] = [0, 0];
  for (let x = 0; x < w; x++)
    for (let y = 0; y < h; y++) {
      const v = mask[y * w + x]!;
      if (v !== prev) [counts[counts.length], run, prev] = [run, 0, v];
      run++;
    }
  counts.push(run);
  return counts;
}
/** pycocotools' rleToString: deltas from the third count on, 5-bit groups with a sign bit, + 48. */
function rleString(counts: number[]): string {
  let s = '';
  for (let i = 0; i < counts.length; i++) {
    let x = counts[i]! - (i > 2 ? counts[i - 2]! : 0);
    for (let more = true; more; ) {
      let c = x & 0x1f;
      x >>= 5;
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  }
  return s;
}
/** A w × h mask holding the rectangles given as [x, y, w, h]. */
function rects(w: number, h: number, ...rs: [number, number, number, number][]): Uint8Array {
  const m = new Uint8Array(w * h);
  for (const [rx, ry, rw, rh] of rs) for (let y = ry; y < ry + rh; y++) for (let x = rx; x < rx + rw; x++) m[y * w + x] = 1;
  return m;
}

async function parse(doc: unknown, entry = 'annotations/default.json', out: Parsed = emptyParsed()): Promise<Parsed> {
  const r = await parseJson(Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)), 32);
  if (!('doc' in r) || !isDatumaro(r.doc)) throw new Error('not Datumaro');
  await parseDatumaro(entry, r.doc, out);
  return out;
}
const fields = (out: Parsed) => out.problems.map((p) => [p.vars?.field, p.vars?.expected]);
const reasons = (out: Parsed) => out.skips.map((s) => [s.reason, s.vars?.kind ?? null, s.count]);
const area = (pts: [number, number][]) => Math.abs(pts.reduce((s, [x, y], i) => s + x * pts[(i + 1) % pts.length]![1] - pts[(i + 1) % pts.length]![0] * y, 0)) / 2;
const pointsOf = (g: Geometry) => (g.kind === 'polygon' ? g.points : []);

const labelCats = (names: string[]) => ({
  label: { labels: names.map((name) => ({ name, parent: '', attributes: ['text'] })), label_groups: [], attributes: ['occluded'] },
  points: { items: [{ label_id: names.length - 1, labels: ['nose', 'tail'], joints: [[1, 2]] }] },
});
/** A Datumaro 1.x / CVAT "Datumaro 1.0" annotation file. */
const dm = (names: string[], items: unknown[]) => ({ dm_format_version: '1.0', media_type: 2, infos: {}, categories: labelCats(names), items });
/** The fields every annotation starts with, in the exporter's order. */
const ann = (id: number, type: string, labelId: number | null, rest: Record<string, unknown>, attributes: Record<string, unknown> = { occluded: false, rotation: 0.0 }) => ({
  id,
  type,
  attributes,
  group: 0,
  ...(labelId === undefined ? {} : { label_id: labelId }),
  ...rest,
  z_order: 0,
});
const item = (id: string, annotations: unknown[], image: Record<string, unknown> | null = { path: `${id}.jpg`, size: [480, 640] }) => ({
  id,
  annotations,
  attr: { frame: 0 },
  ...(image ? { image } : {}),
});

describe('Datumaro JSON', () => {
  it('is told apart from COCO, LabelMe and Label Studio', () => {
    expect(isDatumaro(dm(['a'], []))).toBe(true);
    // Datumaro 0.x: "info" and no version.
    expect(isDatumaro({ info: {}, categories: {}, items: [] })).toBe(true);
    expect(isDatumaro({ dm_format_version: '1.0', items: [] })).toBe(true);
    expect(isDatumaro({ images: [], annotations: [], categories: [] })).toBe(false);
    expect(isDatumaro({ info: {}, categories: [{ id: 1, name: 'a' }], items: [] })).toBe(false);
    expect(isDatumaro({ version: '5.4.1', flags: {}, shapes: [], imagePath: 'a.jpg', items: [] })).toBe(false);
    expect(isDatumaro([{ id: 1, data: { image: 'a.jpg' }, annotations: [] }])).toBe(false);
    expect(isDatumaro({ categories: {}, items: {} })).toBe(false);
    expect(isDatumaro(null)).toBe(false);
    expect(isDatumaro('items')).toBe(false);
  });

  it("reads CVAT's Datumaro 1.0 export: every annotation type taken or named", async () => {
    const [W, H] = [64, 48];
    const twoIslands = rects(W, H, [4, 4, 10, 8], [30, 20, 6, 6]);
    const square = rects(W, H, [40, 2, 8, 8]);
    const doc = dm(
      ['car', 'Straße', 'plate'],
      [
        item('frame_000000', [
          ann(0, 'bbox', 0, { bbox: [10.0, 20.0, 30.0, 40.0] }),
          ann(1, 'bbox', 0, { bbox: [100.0, 50.0, 40.0, 20.0] }, { occluded: true, rotation: 30.0 }),
          ann(2, 'polygon', 1, { points: [1.5, 2.0, 40.0, 2.0, 40.0, 30.25, 1.5, 30.25] }),
          ann(3, 'mask', 1, { rle: { counts: rleString(rleCounts(twoIslands, H, W)), size: [H, W] } }, { occluded: false }),
          ann(4, 'mask', 0, { rle: { counts: rleCounts(square, H, W), size: [H, W] } }, { occluded: false }),
          ann(5, 'ellipse', 0, { points: [200.0, 100.0, 260.0, 140.0] }),
          ann(6, 'bbox', 2, { bbox: [300.0, 300.0, 80.0, 20.0] }, { occluded: false, rotation: 0.0, text: 'AB-123' }),
          { id: 7, type: 'label', attributes: {}, group: 0, label_id: 1 },
          ann(8, 'points', 2, { points: [5.0, 5.0, 9.0, 9.0], visibility: [2, 2] }),
          ann(9, 'polyline', 0, { points: [0.0, 0.0, 10.0, 10.0, 20.0, 0.0] }),
          { id: 10, type: 'caption', attributes: {}, group: 0, caption: 'a red car' },
          { id: 11, type: 'cuboid_3d', attributes: {}, group: 0, label_id: 0, position: [0, 0, 0], rotation: [0, 0, 0], scale: [1, 1, 1] },
          ann(12, 'skeleton', 2, { elements: [] }),
          ann(13, 'points', 2, { points: [1.0, 1.0], visibility: [2] }),
        ]),
        item('frame_000001', []),
      ],
    );
    const out = await parse(doc);
    expect(out.problems).toEqual([]);
    expect(out.files.get('annotations/default.json')).toBe('datumaro');
    expect([...out.images]).toEqual(['frame_000000.jpg', 'frame_000001.jpg']);
    expect(out.annotations.map((a) => [a.image, a.label, a.geometry.kind, a.converted ?? null])).toEqual([
      ['frame_000000.jpg', 'car', 'box', null],
      ['frame_000000.jpg', 'car', 'rbox', null],
      ['frame_000000.jpg', 'Straße', 'polygon', null],
      ['frame_000000.jpg', 'Straße', 'polygon', 'maskToPolygon'],
      ['frame_000000.jpg', 'car', 'polygon', 'maskToPolygon'],
      ['frame_000000.jpg', 'car', 'polygon', 'circleToPolygon'],
      ['frame_000000.jpg', 'plate', 'box', null],
    ]);
    const [box, rbox, poly, islands, one, ell, ocr] = out.annotations.map((a) => a);
    expect(box!.geometry).toEqual({ kind: 'box', x1: 10, y1: 20, x2: 40, y2: 60 });
    // The unrotated bbox, turned 30° about its centre.
    expect(rbox!.geometry).toEqual({ kind: 'rbox', cx: 120, cy: 60, w: 40, h: 20, angle: 30 });
    expect(pointsOf(poly!.geometry)).toEqual([[1.5, 2], [40, 2], [40, 30.25], [1.5, 30.25]]);
    // Compressed RLE: both islands, each with its own area.
    expect(islands!.moreParts).toHaveLength(1);
    const parts = [islands!.geometry, ...islands!.moreParts!].map((g) => area(pointsOf(g))).sort((a, b) => b - a);
    expect(parts[0]).toBeCloseTo(80, -1);
    expect(parts[1]).toBeCloseTo(36, -1);
    // Uncompressed counts (a list): one island where the square is.
    expect(one!.moreParts).toBeUndefined();
    const xs = pointsOf(one!.geometry).map((p) => p[0]);
    expect([Math.min(...xs), Math.max(...xs)]).toEqual([40, 48]);
    // The ellipse's polygon keeps to its bounding box and its area.
    const e = pointsOf(ell!.geometry);
    expect([Math.min(...e.map((p) => p[0])), Math.max(...e.map((p) => p[0]))]).toEqual([200, 260]);
    expect(Math.max(...e.map((p) => p[1]))).toBeCloseTo(140, 6);
    expect(area(e)).toBeGreaterThan(Math.PI * 30 * 20 * 0.98);
    expect(ocr!.geometry.text).toBe('AB-123');
    expect(out.classes).toEqual([{ entry: 'annotations/default.json', image: 'frame_000000.jpg', label: 'Straße' }]);
    expect(reasons(out)).toEqual([
      ['point', null, 1],
      ['line', null, 1],
      ['unsupportedShape', 'caption', 1],
      ['unsupportedShape', 'cuboid_3d', 1],
      ['unsupportedShape', 'skeleton', 1],
      ['point', null, 1],
    ]);
  });

  it('turns ellipses by their rotation attribute and keeps OCR text from `ocr`', async () => {
    const out = await parse(
      dm(['a'], [item('x', [ann(0, 'ellipse', 0, { points: [0.0, 40.0, 100.0, 60.0] }, { occluded: false, rotation: 90.0, ocr: 'Z9' })])]),
    );
    const pts = pointsOf(out.annotations[0]!.geometry);
    // 100 × 20 turned a quarter: 20 wide, 100 tall about (50, 50).
    expect(Math.max(...pts.map((p) => p[0])) - Math.min(...pts.map((p) => p[0]))).toBeCloseTo(20, 1);
    expect(Math.max(...pts.map((p) => p[1])) - Math.min(...pts.map((p) => p[1]))).toBeCloseTo(100, 1);
    expect(out.annotations[0]!.geometry.text).toBe('Z9');
  });

  it('reads each subset file on its own: label ids per file, no subset in the image names', async () => {
    const out = emptyParsed();
    await parse(dm(['cat', 'dog'], [item('img_1', [ann(0, 'bbox', 1, { bbox: [1.0, 1.0, 5.0, 5.0] })])]), 'annotations/train.json', out);
    await parse(dm(['dog', 'cat'], [item('img_2', [ann(0, 'bbox', 1, { bbox: [2.0, 2.0, 5.0, 5.0] })])]), 'annotations/val.json', out);
    expect([...out.files]).toEqual([
      ['annotations/train.json', 'datumaro'],
      ['annotations/val.json', 'datumaro'],
    ]);
    expect(out.annotations.map((a) => [a.entry, a.image, a.label])).toEqual([
      ['annotations/train.json', 'img_1.jpg', 'dog'],
      ['annotations/val.json', 'img_2.jpg', 'cat'],
    ]);
  });

  it('names images by image.path, media.path, else the item id (a path without extension)', async () => {
    const out = await parse({
      info: {},
      categories: { label: { labels: [{ name: 'a', parent: '', attributes: [] }] } },
      items: [
        { id: 'folder/img_7', annotations: [ann(0, 'bbox', 0, { bbox: [1.0, 1.0, 2.0, 2.0] })] },
        { id: 'b', annotations: [], media: { path: 'sub\\b.png' } },
        // Datumaro 1.x with saved media: an absolute path; the id with the path's extension is what counts.
        { id: 'night/c', annotations: [], image: { path: '/home/u/ds/images/train/night/c.jpeg', size: [10, 10] } },
        { id: 'd', annotations: [], image: { size: [10, 10] } },
        { id: 42, annotations: [] },
        { id: 'e' },
        { id: 'lidar_1', annotations: [{ id: 0, type: 'cuboid_3d', attributes: { occluded: false }, group: 0, label_id: 0, position: [1.0, 2.0, 0.0], rotation: [0.0, 0.0, 0.5], scale: [4.0, 2.0, 1.5] }], point_cloud: { path: 'lidar_1.pcd' }, related_images: [] },
      ],
    });
    expect(reasons(out)).toEqual([['unsupportedShape', 'cuboid_3d', 1]]);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['folder/img_7', 'sub/b.png', 'night/c.jpeg', 'd', '42', 'e']);
    expect(out.annotations[0]!.image).toBe('folder/img_7');
  });

  it('answers malformed files with the place and what was expected, never throwing', async () => {
    const bad = dm(
      ['a', 'b'],
      [
        item('ok', [
          ann(0, 'bbox', 5, { bbox: [1.0, 1.0, 2.0, 2.0] }),
          ann(1, 'bbox', -1, { bbox: [1.0, 1.0, 2.0, 2.0] }),
          ann(2, 'bbox', 0.5, { bbox: [1.0, 1.0, 2.0, 2.0] }),
          ann(3, 'bbox', '0' as unknown as number, { bbox: [1.0, 1.0, 2.0, 2.0] }),
          ann(4, 'bbox', null, { bbox: [1.0, 1.0, 2.0, 2.0] }),
          ann(5, 'bbox', 0, { bbox: [1.0, null, 2.0, 2.0] }),
          ann(6, 'bbox', 0, { bbox: [1e300, 1.0, 2.0, 2.0] }),
          ann(7, 'bbox', 0, { bbox: [1.0, 1.0, -2.0, 2.0] }),
          ann(8, 'bbox', 0, { bbox: ['1', '1', '2', '2'] }),
          ann(9, 'bbox', 0, {}),
          ann(10, 'bbox', 0, { bbox: [1.0, 1.0, 2.0, 2.0] }, { occluded: false, rotation: '30' }),
          ann(11, 'polygon', 0, { points: [1.0, 1.0, 5.0, 1.0, 5.0] }),
          ann(12, 'polygon', 0, { points: [1.0, 1.0, 5.0, 1.0] }),
          ann(13, 'mask', 0, { rle: { counts: [1, 2, 3], size: [4, 4] } }),
          ann(14, 'mask', 0, { rle: { counts: '0', size: [1e300, 1e300] } }),
          ann(15, 'mask', 0, { rle: 'abc' }),
          ann(16, 'ellipse', 0, { points: [1.0, 1.0, 1.0, 5.0] }),
          ann(17, 'ellipse', 0, { points: [1.0, 1.0] }),
          { id: 18, attributes: {}, group: 0, label_id: 0 },
          { id: 19, type: 5, attributes: {}, group: 0, label_id: 0, bbox: [1, 1, 2, 2] },
          'bbox',
          null,
          ann(22, 'mask', 0, { rle: { counts: [16], size: [4, 4] } }),
          ann(23, 'bbox', 1, { bbox: [1.0, 1.0, 2.0, 2.0] }),
        ]),
        { id: '', annotations: [] },
        { annotations: [] },
        'frame',
        { id: 'x', annotations: { 0: {} } },
      ],
    );
    const out = await parse(bad);
    const at = (k: number) => `items[0].annotations[${k}]`;
    expect(fields(out)).toEqual([
      [`${at(0)}.label_id`, 'categoryRef'],
      [`${at(1)}.label_id`, 'categoryRef'],
      [`${at(2)}.label_id`, 'categoryRef'],
      [`${at(3)}.label_id`, 'categoryRef'],
      [`${at(5)}.bbox`, 'bbox'],
      [`${at(6)}.bbox`, 'bbox'],
      [`${at(7)}.bbox`, 'bbox'],
      [`${at(8)}.bbox`, 'bbox'],
      [`${at(9)}.bbox`, 'bbox'],
      [`${at(10)}.attributes.rotation`, 'number'],
      [`${at(11)}.points`, 'flatPoints'],
      [`${at(12)}.points`, 'flatPoints'],
      [`${at(13)}.rle`, 'rle'],
      [`${at(14)}.rle`, 'rle'],
      [`${at(15)}.rle`, 'rle'],
      [`${at(16)}.points`, 'positiveSize'],
      [`${at(17)}.points`, 'corners'],
      [`${at(18)}.type`, 'text'],
      [at(20), 'object'],
      [at(21), 'object'],
      ['items[1].id', 'text'],
      ['items[2].id', 'text'],
      ['items[3].id', 'text'],
      ['items[4].annotations', 'list'],
    ]);
    expect(out.problems.every((p) => p.key === 'annotationBadField' && p.vars?.entry === 'annotations/default.json')).toBe(true);
    expect(reasons(out)).toEqual([
      ['noLabel', null, 1],
      ['unsupportedShape', 'type 5', 1],
      ['invalid', null, 1],
    ]);
    expect(out.annotations.map((a) => a.label)).toEqual(['b']);
    expect([...out.images]).toEqual(['ok.jpg', 'x']);
  });

  it('reports broken label lists and whole-file problems', async () => {
    const noNames = await parse({ dm_format_version: '1.0', categories: { label: { labels: [{ parent: '' }, { name: 'b' }] } }, items: [item('i', [ann(0, 'bbox', 0, { bbox: [1.0, 1.0, 2.0, 2.0] }), ann(1, 'bbox', 1, { bbox: [1.0, 1.0, 2.0, 2.0] })])] });
    expect(fields(noNames)).toEqual([
      ['categories.label.labels[0].name', 'text'],
      ['items[0].annotations[0].label_id', 'categoryRef'],
    ]);
    expect(noNames.annotations).toHaveLength(1);
    const noLabels = await parse({ dm_format_version: '1.0', categories: {}, items: [item('i', [ann(0, 'polygon', 0, { points: [0.0, 0.0, 4.0, 0.0, 4.0, 4.0] })])] });
    expect(fields(noLabels)).toEqual([['items[0].annotations[0].label_id', 'categoryRef']]);
    const arrayCats = await parse({ dm_format_version: '1.0', categories: [], items: [] });
    expect(fields(arrayCats)).toEqual([['categories', 'object']]);
    const labelsNotList = await parse({ dm_format_version: '1.0', categories: { label: { labels: 'a,b' } }, items: [] });
    expect(fields(labelsNotList)).toEqual([['categories.label.labels', 'list']]);
    const direct = emptyParsed();
    await parseDatumaro('a.json', { items: 'none' }, direct);
    await parseDatumaro('b.json', null, direct);
    // Python's json.dump writes NaN for a float('nan'); a parser that let it through gets a bad bbox.
    await parseDatumaro('c.json', { categories: labelCats(['a']), items: [item('n', [ann(0, 'bbox', 0, { bbox: [NaN, 1, 2, 2] }), ann(1, 'bbox', 0, { bbox: [1, 1, Infinity, 2] })])] }, direct);
    expect(fields(direct)).toEqual([
      ['items', 'list'],
      ['items', 'list'],
      ['items[0].annotations[0].bbox', 'bbox'],
      ['items[0].annotations[1].bbox', 'bbox'],
    ]);
  });

  it('takes long point lists as the JSON worker hands them (Float64Array)', async () => {
    const n = 600;
    const points = Array.from({ length: n }, (_, i) => [100 + 50 * Math.cos((2 * Math.PI * i) / n), 100 + 50 * Math.sin((2 * Math.PI * i) / n)]).flat();
    const out = await parse(dm(['ring'], [item('r', [ann(0, 'polygon', 0, { points })])]));
    expect(out.problems).toEqual([]);
    expect(pointsOf(out.annotations[0]!.geometry)).toHaveLength(n);
  });
});

describe('Datumaro writer', () => {
  const images: ExportImage[] = [
    {
      file: 'part_01.jpg',
      width: 640,
      height: 480,
      annotations: [
        { label: 'Kratzer-ä', labelIndex: 0, geometry: { kind: 'box', x1: 10.25, y1: 20.5, x2: 110.125, y2: 60.75 } },
        ...[0, 30, 95, -45].map((angle) => ({ label: '缺陷', labelIndex: 1, geometry: { kind: 'rbox' as const, cx: 300.5, cy: 200.25, w: 120.333, h: 40.667, angle } })),
        { label: '缺陷', labelIndex: 1, geometry: { kind: 'polygon', points: [[1.5, 2.25], [50.125, 3], [40, 44.875], [3, 30.5]] } },
        { label: 'Kratzer-ä', labelIndex: 0, geometry: { kind: 'box', x1: 5, y1: 5, x2: 25, y2: 15, text: 'SN 4711/ü' } },
        { label: 'Kratzer-ä', labelIndex: 0, geometry: { kind: 'rbox', cx: 80, cy: 80, w: 30, h: 10, angle: 12.5, text: 'Ω-7' } },
      ],
    },
    { file: 'part_02.png', width: 320, height: 200, annotations: [] },
    { file: 'part_01.png', width: 320, height: 200, annotations: [{ label: '缺陷', labelIndex: 1, geometry: { kind: 'box', x1: 1, y1: 1, x2: 9, y2: 9 } }] },
  ];

  it('writes the layout `datum` reads, and reads back the same shapes within 0.01 px', async () => {
    expect(datumaroWriter.imageDir).toBe('images/default/');
    const files = datumaroWriter.files(images, ['Kratzer-ä', '缺陷']);
    expect(files.map((f) => f.path)).toEqual(['annotations/default.json']);
    const doc = JSON.parse(files[0]!.data.toString('utf8')) as Record<string, unknown> & { items: { id: string; image: unknown }[] };
    expect(doc.dm_format_version).toBe('1.0');
    expect(doc.categories).toMatchObject({ label: { labels: [{ name: 'Kratzer-ä', parent: '', attributes: [] }, { name: '缺陷', parent: '', attributes: [] }] } });
    // Ids are stems, unique in the subset: the second "part_01" keeps its extension.
    expect(doc.items.map((i) => i.id)).toEqual(['part_01', 'part_02', 'part_01.png']);
    expect(doc.items[0]!.image).toEqual({ path: 'part_01.jpg', size: [480, 640] });

    const out = await parse(files[0]!.data.toString('utf8'));
    expect(out.problems).toEqual([]);
    expect(out.skips).toEqual([]);
    expect([...out.images]).toEqual(['part_01.jpg', 'part_02.png', 'part_01.png']);
    const want = images.flatMap((img) => img.annotations.map((a) => ({ image: img.file, ...a })));
    expect(out.annotations).toHaveLength(want.length);
    for (const [i, got] of out.annotations.entries()) {
      const w = want[i]!;
      expect([got.image, got.label, got.geometry.kind, got.geometry.text]).toEqual([w.image, w.label, w.geometry.kind, w.geometry.text]);
      const nums = (g: Geometry) => (g.kind === 'box' ? [g.x1, g.y1, g.x2, g.y2] : g.kind === 'rbox' ? [g.cx, g.cy, g.w, g.h, g.angle] : g.points.flat());
      const [a, b] = [nums(got.geometry), nums(w.geometry)];
      expect(a).toHaveLength(b.length);
      a.forEach((v, k) => expect(Math.abs(v - b[k]!)).toBeLessThanOrEqual(0.01));
    }
  });

  it('writes an empty dataset that still reads', async () => {
    const files = datumaroWriter.files([], []);
    const out = await parse(files[0]!.data.toString('utf8'));
    expect([out.problems, out.annotations, [...out.images]]).toEqual([[], [], []]);
  });
});
