import { describe, expect, it } from 'vitest';
import type { Geometry } from '@loupe/contracts';
import { decodeBrushRle, imageName, isLabelStudio, labelStudioWriter, parseLabelStudio } from '../src/services/formats/labelstudio.js';
import { emptyParsed, toExportable, type ExportImage, type Parsed } from '../src/services/formats/types.js';

/**
 * Label Studio exports built field by field as Label Studio 1.x writes them (tasks with annotations in
 * percent of original_width/height, predictions, /data/upload/ paths; the OCR template's rectangle + labels +
 * textarea sharing one id; JSON-MIN), read by the parser alone (issue 33).
 */
async function parse(doc: unknown, entry = 'export.json'): Promise<Parsed> {
  expect(isLabelStudio(doc)).toBe(true);
  const out = emptyParsed();
  await parseLabelStudio(entry, doc, out);
  return out;
}
const skips = (out: Parsed) => {
  const by: Record<string, number> = {};
  for (const s of out.skips) {
    const key = s.vars?.kind ? `${s.reason}:${s.vars.kind}` : s.reason;
    by[key] = (by[key] ?? 0) + s.count;
  }
  return by;
};
const fields = (out: Parsed) => out.problems.map((p) => `${p.vars?.field ?? ''} ${p.vars?.expected ?? ''}`.trim());
type Pt = [number, number];
const corners = (g: Geometry): Pt[] => {
  const e = toExportable(g);
  return e.kind === 'box' ? [[e.x1, e.y1], [e.x2, e.y1], [e.x2, e.y2], [e.x1, e.y2]] : e.points;
};
const near = (a: Pt[], b: Pt[], eps: number) => {
  expect(a).toHaveLength(b.length);
  a.forEach((p, i) => {
    expect(Math.abs(p[0] - b[i]![0])).toBeLessThan(eps);
    expect(Math.abs(p[1] - b[i]![1])).toBeLessThan(eps);
  });
};

/** One result as Label Studio 1.x writes it (field order of its export). */
const result = (id: string, type: string, value: Record<string, unknown>, from = 'label', size: [number, number] | null = [1000, 500]) => ({
  ...(size ? { original_width: size[0], original_height: size[1] } : {}),
  image_rotation: 0,
  value,
  id,
  from_name: from,
  to_name: 'image',
  type,
  origin: 'manual',
});
const annotation = (id: number, res: unknown[], extra: Record<string, unknown> = {}) => ({
  id,
  completed_by: 1,
  result: res,
  was_cancelled: false,
  ground_truth: false,
  created_at: '2024-05-02T09:14:51.391524Z',
  updated_at: '2024-05-02T09:14:51.391553Z',
  draft_created_at: null,
  lead_time: 12.482,
  prediction: {},
  result_count: 0,
  unique_id: 'a5e0c7d6-29b5-4d6c-9a61-4b1c0a3f6b22',
  import_id: null,
  last_action: null,
  task: 1,
  project: 3,
  updated_by: 1,
  parent_prediction: null,
  parent_annotation: null,
  last_created_by: null,
  ...extra,
});
const task = (id: number, image: string, annotations: unknown[], predictions: unknown[] = []) => ({
  id,
  annotations,
  file_upload: image.split('/').pop(),
  drafts: [],
  predictions,
  data: { image },
  meta: {},
  created_at: '2024-05-02T09:10:02.117339Z',
  updated_at: '2024-05-02T09:14:51.412041Z',
  inner_id: id,
  total_annotations: annotations.length,
  cancelled_annotations: 0,
  total_predictions: predictions.length,
  comment_count: 0,
  unresolved_comment_count: 0,
  last_comment_updated_at: null,
  project: 3,
  updated_by: 1,
  comment_authors: [],
});

describe('Label Studio JSON', () => {
  it('reads a 1.x task list: boxes, polygons, choices; the last annotation not cancelled; predictions not imported', async () => {
    const doc = [
      task(1, '/data/upload/3/ab12cd34-street_01.jpg', [
        annotation(11, [
          result('Xk3_pQ9aZr', 'rectanglelabels', { x: 10, y: 20, width: 30, height: 40, rotation: 0, rectanglelabels: ['Car'] }),
          result('b7Tq1mN0wE', 'polygonlabels', { points: [[50, 10], [60, 10], [55, 30]], closed: true, polygonlabels: ['Road'] }),
          result('Zc0a9Lk2Pq', 'choices', { choices: ['day', 'dry'] }, 'weather', null),
        ]),
      ], [{ id: 4, model_version: 'yolo-v8', score: 0.8, result: [result('pred1', 'rectanglelabels', { x: 0, y: 0, width: 5, height: 5, rotation: 0, rectanglelabels: ['Car'] })] }]),
      task(2, '/data/upload/3/0f9e8d7c-street_02.jpg', [
        annotation(12, [result('old1', 'rectanglelabels', { x: 1, y: 1, width: 2, height: 2, rotation: 0, rectanglelabels: ['Car'] })]),
        annotation(13, [result('new1', 'rectanglelabels', { x: 50, y: 50, width: 10, height: 10, rotation: 0, rectanglelabels: ['Bus'] })]),
        annotation(14, [result('gone', 'rectanglelabels', { x: 5, y: 5, width: 5, height: 5, rotation: 0, rectanglelabels: ['Truck'] })], { was_cancelled: true }),
      ]),
      task(3, '/data/upload/3/11aa22bb-street_03.jpg', [], [{ id: 5, model_version: 'yolo-v8', score: 0.5, result: [result('p', 'rectanglelabels', { x: 1, y: 1, width: 5, height: 5, rotation: 0, rectanglelabels: ['Car'] })] }]),
      task(4, '/data/upload/3/22bb33cc-street_04.jpg', [annotation(15, [result('c', 'rectanglelabels', { x: 1, y: 1, width: 5, height: 5, rotation: 0, rectanglelabels: ['Car'] })], { was_cancelled: true })]),
    ];
    const out = await parse(doc);
    expect(out.files.get('export.json')).toBe('labelstudio');
    expect([...out.images]).toEqual(['street_01.jpg', 'street_02.jpg', 'street_03.jpg', 'street_04.jpg']);
    expect(out.annotations.map((a) => [a.image, a.label, a.geometry])).toEqual([
      ['street_01.jpg', 'Car', { kind: 'box', x1: 100, y1: 100, x2: 400, y2: 300 }],
      ['street_01.jpg', 'Road', { kind: 'polygon', points: [[500, 50], [600, 50], [550, 150]] }],
      ['street_02.jpg', 'Bus', { kind: 'box', x1: 500, y1: 250, x2: 600, y2: 300 }],
    ]);
    expect(out.classes).toEqual([
      { entry: 'export.json', image: 'street_01.jpg', label: 'day' },
      { entry: 'export.json', image: 'street_01.jpg', label: 'dry' },
    ]);
    expect(out.skips).toEqual([]);
    expect(out.problems).toEqual([]);
  });

  it('reads the OCR template: rectangle / polygon + labels + textarea sharing one id; a task-level textarea is ignored', async () => {
    const geo = { x: 10, y: 10, width: 20, height: 5, rotation: 0 };
    const poly = { points: [[50, 50], [70, 50], [70, 60], [50, 60]] };
    const doc = [
      task(1, '/data/local-files/?d=receipts/scan%2001.png', [
        annotation(1, [
          result('bb1', 'rectangle', geo, 'bbox'),
          result('bb1', 'labels', { ...geo, labels: ['Text'] }),
          result('bb1', 'textarea', { ...geo, text: ['TOTAL', '12,50 €'] }, 'transcription'),
          result('pp1', 'polygon', poly, 'poly'),
          result('pp1', 'labels', { ...poly, labels: ['Handwriting'] }),
          result('pp1', 'textarea', { ...poly, text: ['Grüße'] }, 'transcription'),
          result('bb2', 'rectangle', { x: 80, y: 80, width: 5, height: 5, rotation: 0 }, 'bbox'),
          result('bb3', 'labels', { x: 1, y: 90, width: 10, height: 4, rotation: 0, labels: ['Text'] }),
          result('note', 'textarea', { text: ['whole receipt is faded'] }, 'notes', null),
        ]),
      ]),
    ];
    const out = await parse(doc);
    expect([...out.images]).toEqual(['receipts/scan 01.png']);
    expect(out.annotations.map((a) => [a.label, a.geometry])).toEqual([
      ['Text', { kind: 'box', x1: 100, y1: 50, x2: 300, y2: 75, text: 'TOTAL 12,50 €' }],
      ['Handwriting', { kind: 'polygon', points: [[500, 250], [700, 250], [700, 300], [500, 300]], text: 'Grüße' }],
      ['Text', { kind: 'box', x1: 10, y1: 450, x2: 110, y2: 470 }],
    ]);
    expect(skips(out)).toEqual({ noLabel: 1 });
  });

  it("turns rotated rectangles clockwise about their top-left corner, as Label Studio's converter does (30° and 95°)", async () => {
    const rect = (id: string, rotation: number) => result(id, 'rectanglelabels', { x: 20, y: 10, width: 30, height: 20, rotation, rectanglelabels: ['Ship'] });
    const out = await parse(task(1, 'https://cdn.example.com/sat/tile_7.jpg?X-Amz-Signature=abc', [annotation(1, [rect('a', 30), rect('b', 95), rect('c', 360)])]));
    expect(out.annotations.map((a) => a.geometry.kind)).toEqual(['rbox', 'rbox', 'box']);
    // anchor (200, 50), 300 x 100 px; corners from x + w·cos − h·sin, y + w·sin + h·cos by hand
    near(corners(out.annotations[0]!.geometry), [[200, 50], [459.80762, 200], [409.80762, 286.60254], [150, 136.60254]], 1e-4);
    near(corners(out.annotations[1]!.geometry), [[200, 50], [173.85328, 348.85841], [74.23381, 340.14284], [100.38053, 41.28443]], 1e-4);
    expect(out.annotations[0]!.geometry).toMatchObject({ w: 300, h: 100, angle: 30 });
    expect(out.annotations[0]!.image).toBe('sat/tile_7.jpg');
    expect(out.annotations[2]!.geometry).toEqual({ kind: 'box', x1: 200, y1: 50, x2: 500, y2: 150 });
  });

  it('skips keypoints, relations and other controls by kind; ellipses become polygons; extra labels are counted', async () => {
    const out = await parse([
      task(1, '/data/upload/1/aaaaaaaa-a.jpg', [
        annotation(1, [
          result('k', 'keypointlabels', { x: 5, y: 5, width: 0.5, keypointlabels: ['eye'] }),
          { from_id: 'k', to_id: 'e', type: 'relation', direction: 'right' },
          result('n', 'number', { number: 3 }, 'count', null),
          result('e', 'ellipselabels', { x: 50, y: 50, radiusX: 10, radiusY: 20, rotation: 0, ellipselabels: ['coin'] }),
          result('e2', 'ellipselabels', { x: 20, y: 40, radiusX: 10, radiusY: 10, rotation: 90, ellipselabels: ['seed'] }),
          result('m', 'rectanglelabels', { x: 1, y: 1, width: 5, height: 5, rotation: 0, rectanglelabels: ['Car', 'Red', 'Parked'] }),
          result('e', 'choices', { x: 50, y: 50, radiusX: 10, radiusY: 20, rotation: 0, choices: ['shiny'] }, 'attr'),
        ]),
      ]),
    ]);
    expect(skips(out)).toEqual({ point: 1, 'unsupportedShape:relation': 1, 'unsupportedShape:number': 1, extraLabel: 2 });
    expect(out.annotations.map((a) => [a.label, a.geometry.kind, a.converted])).toEqual([
      ['coin', 'polygon', 'circleToPolygon'],
      ['seed', 'polygon', 'circleToPolygon'],
      ['Car', 'box', undefined],
    ]);
    const ring = (out.annotations[0]!.geometry as { points: Pt[] }).points;
    expect(ring.length).toBeGreaterThanOrEqual(32);
    // rx = 100 px, ry = 100 px on 1000 x 500: a circle of radius 100 about (500, 250)
    for (const [x, y] of ring) expect(Math.hypot(x - 500, y - 250)).toBeCloseTo(100, 6);
    // 100 x 50 px radii about (200, 200), turned 90° clockwise: 50 px across, 100 px down
    const seed = (out.annotations[1]!.geometry as { points: Pt[] }).points;
    for (const [x, y] of seed) expect(((x - 200) / 50) ** 2 + ((y - 200) / 100) ** 2).toBeCloseTo(1, 9);
    expect(Math.max(...seed.map((p) => p[1]))).toBeCloseTo(300, 6);
    expect(out.classes).toEqual([]);
  });

  it('reads JSON-MIN with region lists (OCR lists joined by their shared geometry) but leaves choice-only JSON-MIN to the class lists', async () => {
    const r = { x: 10, y: 20, width: 30, height: 10, rotation: 0 };
    const size = { original_width: 800, original_height: 600 };
    const doc = [
      {
        image: '/data/upload/2/c0ffee00-bill.jpg',
        id: 7,
        bbox: [{ ...r, ...size }],
        label: [{ ...r, labels: ['Amount'], ...size }, { x: 50, y: 50, width: 10, height: 10, rotation: 0, labels: ['Date'], ...size }],
        transcription: [{ ...r, text: ['42,00'], ...size }],
        poly: { points: [[0, 0], [10, 0], [10, 10]], polygonlabels: ['Logo'], ...size },
        tags: [{ note: 'not a region' }],
        eye: [{ x: 5, y: 5, width: 0.4, ...size }, { x: 6, y: 5, width: 0.4, keypointlabels: ['Eye'], ...size }],
        kind: { choices: ['invoice', 'paid'] },
        stain: [{ format: 'rle', rle: [1, 2, 3], brushlabels: ['Stain'], ...size }, { format: 'rle', rle: [4, 5, 6], brushlabels: ['Stain'], ...size }],
        annotator: 1,
        annotation_id: 9,
        created_at: '2024-05-02T09:14:51.391524Z',
        updated_at: '2024-05-02T09:14:51.391553Z',
        lead_time: 20.5,
      },
    ];
    const out = await parse(doc, 'min.json');
    expect(out.annotations.map((a) => [a.image, a.label, a.geometry])).toEqual([
      ['bill.jpg', 'Amount', { kind: 'box', x1: 80, y1: 120, x2: 320, y2: 180, text: '42,00' }],
      ['bill.jpg', 'Date', { kind: 'box', x1: 400, y1: 300, x2: 480, y2: 360 }],
      ['bill.jpg', 'Logo', { kind: 'polygon', points: [[0, 0], [80, 0], [80, 60]] }],
    ]);
    expect(out.classes.map((c) => c.label)).toEqual(['invoice', 'paid']);
    // two brushes (no geometry to join them by) stay two regions
    expect(fields(out)).toEqual(['[0].stain[0].rle rle', '[0].stain[1].rle rle']);
    expect(skips(out)).toEqual({ point: 2 });
    expect(isLabelStudio([{ image: '/data/upload/1/aa-1.jpg', id: 1, choice: 'cat', annotator: 1 }])).toBe(false);
    expect(isLabelStudio([{ image: 'a.jpg', sentiment: { choices: ['a', 'b'] } }])).toBe(false);
  });

  it('tells Label Studio from COCO, LabelMe and class lists, and takes a single task', () => {
    expect(isLabelStudio({ images: [], annotations: [], categories: [] })).toBe(false);
    expect(isLabelStudio({ version: '5.4.1', shapes: [], imagePath: 'a.jpg', imageData: null })).toBe(false);
    expect(isLabelStudio([{ image: 'a.jpg', label: 'cat' }])).toBe(false);
    expect(isLabelStudio([])).toBe(false);
    expect(isLabelStudio({ data: { image: 'a.jpg' }, annotations: [] })).toBe(true);
    expect(isLabelStudio([{ data: { image: 'a.jpg' }, completions: [] }])).toBe(true);
  });

  it('uses the size-less fractions for unrotated shapes and refuses a rotated one without a size', async () => {
    const out = await parse({
      id: 1,
      data: { img: 's3://bucket/raw/frames/f%C3%BCnf.jpg' },
      annotations: [
        annotation(1, [
          result('a', 'rectanglelabels', { x: 10, y: 20, width: 30, height: 40, rotation: 0, rectanglelabels: ['Car'] }, 'label', null),
          result('p', 'polygonlabels', { points: [[10, 10], [20, 10], [20, 30]], polygonlabels: ['Car'] }, 'label', null),
          result('r', 'rectanglelabels', { x: 10, y: 20, width: 30, height: 40, rotation: 30, rectanglelabels: ['Car'] }, 'label', null),
        ]),
      ],
    });
    expect(out.annotations.map((a) => [a.image, a.normalized, a.geometry])).toEqual([
      ['raw/frames/fünf.jpg', true, { kind: 'box', x1: 0.1, y1: 0.2, x2: expect.closeTo(0.4, 12), y2: expect.closeTo(0.6, 12) }],
      ['raw/frames/fünf.jpg', true, { kind: 'polygon', points: [[0.1, 0.1], [0.2, 0.1], [0.2, 0.3]] }],
    ]);
    expect(fields(out)).toEqual(['.annotations[0].result[2].original_width positiveSize']);
  });

  it('names malformed places (wrong types, NaN, huge numbers, bad sizes) and never throws', async () => {
    const rect = (v: Record<string, unknown>) => ({ x: 1, y: 1, width: 5, height: 5, rotation: 0, rectanglelabels: ['Car'], ...v });
    const doc = [
      'not a task',
      task(2, '/data/upload/1/aaaaaaaa-b.jpg', [{ ...annotation(1, []), result: 'nope' }]),
      { id: 3, data: { image: 42 }, annotations: [] },
      task(4, 'c.jpg', [
        annotation(1, [
          7,
          { type: 'rectanglelabels', id: 'x' },
          result('n', 'rectanglelabels', rect({ x: Number.NaN })),
          result('h', 'rectanglelabels', rect({ width: 1e300 })),
          result('s', 'rectanglelabels', rect({ rotation: '30' })),
          { ...result('w', 'rectanglelabels', rect({})), original_width: -5 },
          result('l', 'rectanglelabels', rect({ rectanglelabels: 'Car' })),
          result('p', 'polygonlabels', { points: [[1, 1], [2, 'x'], [3, 3]], polygonlabels: ['A'] }),
          result('q', 'polygonlabels', { points: [[1, 1], [1, 1], [3, 3]], polygonlabels: ['A'] }),
          result('z', 'rectanglelabels', rect({ width: 0 })),
          { ...result('t', 'rectanglelabels', rect({})), type: 5 },
          result('ok', 'rectanglelabels', rect({})),
        ]),
      ]),
      { id: 5, data: { image: 'd.jpg' }, annotations: { 0: 'x' } },
    ];
    const out = await parse(doc);
    expect(fields(out)).toEqual([
      '[0] object',
      '[1].annotations[0].result list',
      '[2].data.image text',
      '[3].annotations[0].result[0] object',
      '[3].annotations[0].result[1].value object',
      '[3].annotations[0].result[6].value.rectanglelabels list',
      '[3].annotations[0].result[10].type text',
      '[3].annotations[0].result[2].value.x number',
      '[3].annotations[0].result[3].value.width number',
      '[3].annotations[0].result[4].value.rotation number',
      '[3].annotations[0].result[5].original_width positiveSize',
      '[3].annotations[0].result[7].value.points[1] points',
      '[4].annotations list',
    ]);
    expect(skips(out)).toEqual({ invalid: 2 });
    expect(out.annotations.map((a) => a.geometry)).toEqual([{ kind: 'box', x1: 10, y1: 5, x2: 60, y2: 30 }]);
    expect([...out.images]).toEqual(['b.jpg', 'c.jpg', 'd.jpg']);
  });
});

/**
 * Label Studio's brush RLE written from its description (label-studio-converter brush.py): a bit stream, most
 * significant bit first, of the RGBA values; runs where values repeat, literal blocks elsewhere.
 */
function brushRle(rgba: Uint8Array): number[] {
  const bits: number[] = [];
  const put = (v: number, n: number) => {
    for (let k = n - 1; k >= 0; k--) bits.push(Math.floor(v / 2 ** k) % 2);
  };
  const widths = [3, 4, 8, 16];
  put(rgba.length, 32);
  put(8 - 1, 5);
  for (const wd of widths) put(wd - 1, 4);
  const block = (len: number) => {
    const w = widths.findIndex((wd) => len - 1 < 2 ** wd);
    put(w, 2);
    put(len - 1, widths[w]!);
  };
  let i = 0;
  while (i < rgba.length) {
    let j = i + 1;
    while (j < rgba.length && rgba[j] === rgba[i] && j - i < 65536) j++;
    if (j - i >= 4) {
      put(1, 1);
      block(j - i);
      put(rgba[i]!, 8);
    } else {
      // a literal block up to the next run of 4 equal values (at most 16)
      j = i;
      while (j < rgba.length && j - i < 16 && !(rgba[j] === rgba[j + 1] && rgba[j] === rgba[j + 2] && rgba[j] === rgba[j + 3])) j++;
      if (j === i) j = i + 1;
      put(0, 1);
      block(j - i);
      for (let k = i; k < j; k++) put(rgba[k]!, 8);
    }
    i = j;
  }
  while (bits.length % 8) bits.push(0);
  return Array.from({ length: bits.length / 8 }, (_, b) => bits.slice(b * 8, b * 8 + 8).reduce((v, x) => v * 2 + x, 0));
}

describe('Label Studio brushes', () => {
  it('decodes brush RLE into polygons, one per island; a broken stream or a missing size is named', async () => {
    // 10 x 8: a 5 x 5 square at (2, 1) and a 2 x 2 island at (8, 6), painted red at alpha 255; speckled RGB noise
    // outside (alpha 0) so that literal blocks occur too.
    const [w, h] = [10, 8];
    const rgba = new Uint8Array(w * h * 4);
    for (let p = 0; p < w * h; p++) rgba[p * 4 + 1] = (p * 37) % 5;
    const paint = (x: number, y: number) => rgba.set([255, 0, 0, 255], (y * w + x) * 4);
    for (let y = 1; y <= 5; y++) for (let x = 2; x <= 6; x++) paint(x, y);
    for (const [x, y] of [[8, 6], [9, 6], [8, 7], [9, 7]] as const) paint(x, y);
    const rle = brushRle(rgba);
    const mask = await decodeBrushRle(rle, w, h);
    expect(mask && [...mask].reduce((a, b) => a + b, 0)).toBe(29);
    expect(await decodeBrushRle(rle, 8, 10)).toEqual(expect.any(Uint8Array)); // same count of values: a 8 x 10 reading
    expect(await decodeBrushRle(Float64Array.from(rle), w, h)).toEqual(mask); // long lists come from the parse worker so
    expect(await decodeBrushRle(rle, 10, 9)).toBeNull();
    expect(await decodeBrushRle(rle.slice(0, 20), w, h)).toBeNull();
    expect(await decodeBrushRle([...rle.slice(0, 5), 300], w, h)).toBeNull();
    const brush = (id: string, rl: unknown, size: [number, number] | null = [w, h]) => result(id, 'brushlabels', { format: 'rle', rle: rl, brushlabels: ['Rust'] }, 'tag', size);
    const out = await parse([task(1, '/data/upload/1/01234567-plate.png', [annotation(1, [brush('b1', rle), brush('b2', rle.slice(0, 20)), brush('b3', rle, null), brush('b4', new Array(40).fill(0))])])]);
    const bounds = (g: Geometry) => {
      const pts = (g as { points: Pt[] }).points;
      return [Math.min(...pts.map((p) => p[0])), Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[1]))];
    };
    expect(out.annotations).toHaveLength(1);
    const a = out.annotations[0]!;
    expect([a.image, a.label, a.converted]).toEqual(['plate.png', 'Rust', 'maskToPolygon']);
    expect(bounds(a.geometry)).toEqual([2, 1, 7, 6]);
    expect(a.moreParts?.map(bounds)).toEqual([[8, 6, 10, 8]]);
    expect(fields(out)).toEqual([
      '[0].annotations[0].result[1].value.rle rle',
      '[0].annotations[0].result[2].original_width positiveSize',
      '[0].annotations[0].result[3].value.rle rle',
    ]);
  });
});

describe('Label Studio image references', () => {
  it.each([
    ['/data/upload/1/ab12cd34-a.jpg', 'a.jpg'],
    ['/data/upload/12/ab12cd34-my%20photo.JPG', 'my photo.JPG'],
    ['/data/local-files/?d=dir/a.jpg', 'dir/a.jpg'],
    ['/data/local-files/?d=my+data/%C3%A4.png', 'my data/ä.png'],
    ['http://localhost:8080/data/local-files/?d=cam1%2Fb.jpg', 'cam1/b.jpg'],
    ['https://cdn.example.com/img/c.jpg?d=2024-01-01', 'img/c.jpg'],
    ['http://localhost:8080/data/upload/5/deadbeef-x.png', 'x.png'],
    ['https://storage.googleapis.com/bucket/imgs/a.jpg?X-Goog-Signature=1', 'bucket/imgs/a.jpg'],
    ['s3://my-bucket/train/b.webp', 'train/b.webp'],
    ['gs://b/../../etc/passwd.jpg', 'etc/passwd.jpg'],
    ['C:\\Users\\ann\\a.jpg', 'C:/Users/ann/a.jpg'],
    ['ab12cd34-a.jpg', 'a.jpg'],
    ['abc-def.jpg', 'abc-def.jpg'],
    ['/data/upload/1/', null],
  ])('%s → %s', (raw, name) => {
    expect(imageName(raw)).toBe(name);
  });
});

describe('Label Studio export', () => {
  it('round-trips boxes, rotated boxes (0°, 30°, 95°, −45°), polygons, OCR text and non-ASCII labels within 0.01 px', async () => {
    const shapes: { label: string; geometry: Geometry }[] = [
      { label: 'Auto', geometry: { kind: 'box', x1: 10.25, y1: 20.5, x2: 300.75, y2: 400.125 } },
      { label: 'ship', geometry: { kind: 'rbox', cx: 500, cy: 300, w: 120, h: 40, angle: 0 } },
      { label: 'ship', geometry: { kind: 'rbox', cx: 500.5, cy: 300.25, w: 120, h: 40, angle: 30 } },
      { label: 'ship', geometry: { kind: 'rbox', cx: 800, cy: 900, w: 60.5, h: 33.3, angle: 95 } },
      { label: '船', geometry: { kind: 'rbox', cx: 1200, cy: 700, w: 90, h: 20, angle: -45, text: 'MAERSK 7' } },
      { label: 'Straße', geometry: { kind: 'polygon', points: [[1.5, 2.5], [1000.25, 3], [1919.99, 1079.99], [7, 800]] } },
      { label: 'Text', geometry: { kind: 'box', x1: 5, y1: 5, x2: 50, y2: 15, text: 'Grüße, 東京' } },
      { label: 'Text', geometry: { kind: 'polygon', points: [[10, 10], [40, 12], [38, 30]], text: 'zeile' } },
    ];
    const images: ExportImage[] = [
      { file: 'a.jpg', width: 1920, height: 1080, annotations: shapes.map((s, i) => ({ ...s, labelIndex: i })) },
      { file: 'empty.png', width: 64, height: 48, annotations: [] },
    ];
    const [file, ...rest] = labelStudioWriter.files(images, ['Auto', 'ship', '船', 'Straße', 'Text']);
    expect(rest).toEqual([]);
    expect(file!.path).toBe('labelstudio.json');
    expect(labelStudioWriter.imageDir).toBe('images/');
    const doc = JSON.parse(file!.data.toString()) as { data: { image: string }; annotations: { result: { type: string; id: string }[] }[] }[];
    expect(doc.map((t) => t.data.image)).toEqual(['images/a.jpg', 'images/empty.png']);
    expect(doc[0]!.annotations[0]!.result.map((r) => r.type).filter((t) => t === 'textarea')).toHaveLength(3);
    const out = await parse(doc);
    expect([...out.images]).toEqual(['images/a.jpg', 'images/empty.png']);
    expect(out.annotations).toHaveLength(shapes.length);
    expect(out.problems).toEqual([]);
    expect(out.skips).toEqual([]);
    out.annotations.forEach((a, i) => {
      const want = shapes[i]!;
      expect(a.label).toBe(want.label);
      expect(a.normalized).toBeUndefined();
      // a rotated box at 0° comes back as the same box, axis-aligned
      const kind = want.geometry.kind === 'rbox' && want.geometry.angle === 0 ? 'box' : want.geometry.kind;
      expect(a.geometry.kind).toBe(kind);
      expect(a.geometry.text).toBe(want.geometry.text);
      near(corners(a.geometry), corners(want.geometry), 0.01);
      if (a.geometry.kind === 'rbox' && want.geometry.kind === 'rbox') {
        expect(a.geometry.w).toBeCloseTo(want.geometry.w, 4);
        expect(a.geometry.h).toBeCloseTo(want.geometry.h, 4);
        expect((((a.geometry.angle - want.geometry.angle) % 360) + 360) % 360).toBeCloseTo(0, 6);
      }
    });
  });
});
