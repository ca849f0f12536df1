import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { imageRef, isLabelMe, labelMeWriter, parseLabelMe, type LabelMeFile } from '../src/services/formats/labelme.js';
import { emptyParsed, type ExportImage, type Parsed } from '../src/services/formats/types.js';

/**
 * LabelMe (2017's 3.x to 5.x) and X-AnyLabeling files, written field by field as each version writes them
 * (labelme's LabelFile.save and X-AnyLabeling's), read by the parser alone: shapes in the geometry the file
 * states, skips by reason, malformed places named (issue 33).
 */
async function parse(doc: unknown, entry = 'a.json'): Promise<Parsed> {
  const out = emptyParsed();
  expect(isLabelMe(doc)).toBe(true);
  await parseLabelMe(entry, doc as LabelMeFile, out);
  return out;
}
const kinds = (out: Parsed) => out.annotations.map((a) => a.geometry.kind);
const skips = (out: Parsed) => {
  const by: Record<string, number> = {};
  for (const s of out.skips) {
    const key = s.vars?.kind ? `${s.reason}:${s.vars.kind}` : s.reason;
    by[key] = (by[key] ?? 0) + s.count;
  }
  return by;
};
const fields = (out: Parsed) => out.problems.map((p) => `${p.key} ${p.vars?.field ?? ''} ${p.vars?.expected ?? ''}`.trim());
const png = (w = 8, h = 6) => sharp(Buffer.alloc(w * h * 3, 90), { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();

describe('LabelMe versions', () => {
  it('reads a 2017 labelme 3.x file: no shape_type (polygons), colours, no size, the image embedded', async () => {
    const image = await png();
    const doc = {
      imageData: image.toString('base64'),
      imagePath: '2011_000003.jpg',
      lineColor: [0, 255, 0, 128],
      fillColor: [255, 0, 0, 128],
      shapes: [
        { label: 'person', line_color: null, fill_color: null, points: [[250.81, 106.97], [229.06, 117.89], [216.92, 137.22], [248.5, 160.4]] },
        { label: 'bottle', line_color: [0, 0, 255, 128], fill_color: null, points: [[10, 10], [40, 12], [25, 50]] },
      ],
      flags: {},
    };
    const out = await parse(doc, 'ann/2011_000003.json');
    expect(kinds(out)).toEqual(['polygon', 'polygon']);
    expect(out.annotations.map((a) => [a.label, a.image, a.entry])).toEqual([
      ['person', 'ann/2011_000003.jpg', 'ann/2011_000003.json'],
      ['bottle', 'ann/2011_000003.jpg', 'ann/2011_000003.json'],
    ]);
    expect([...out.images]).toEqual(['ann/2011_000003.jpg']);
    expect(out.files.get('ann/2011_000003.json')).toBe('labelme');
    expect(out.embedded).toHaveLength(1);
    expect(out.embedded[0]!.name).toBe('2011_000003.jpg');
    expect(out.embedded[0]!.data.equals(image)).toBe(true);
    expect(out.problems).toEqual([]);
  });

  it('reads a 4.x file: rectangle, polygon, circle → polygon; point, line and linestrip skipped by kind', async () => {
    const doc = {
      version: '4.5.6',
      flags: {},
      shapes: [
        { label: 'cat', points: [[300.5, 220.25], [120, 80.75]], group_id: null, shape_type: 'rectangle', flags: {} },
        { label: 'cat', points: [[10, 10], [60, 10], [60, 40], [35, 55], [10, 40]], group_id: 1, shape_type: 'polygon', flags: {} },
        { label: 'coin', points: [[200, 200], [200, 300]], group_id: null, shape_type: 'circle', flags: {} },
        { label: 'eye', points: [[50, 50]], group_id: null, shape_type: 'point', flags: {} },
        { label: 'edge', points: [[0, 0], [10, 10]], group_id: null, shape_type: 'line', flags: {} },
        { label: 'edge', points: [[0, 0], [10, 10], [20, 5]], group_id: null, shape_type: 'linestrip', flags: {} },
      ],
      imagePath: '..\\images\\cat.jpg',
      imageData: null,
      imageHeight: 480,
      imageWidth: 640,
    };
    const out = await parse(doc, 'labels/cat.json');
    expect(kinds(out)).toEqual(['box', 'polygon', 'polygon']);
    expect(out.annotations[0]!.geometry).toEqual({ kind: 'box', x1: 120, y1: 80.75, x2: 300.5, y2: 220.25 });
    expect(out.annotations[0]!.image).toBe('images/cat.jpg');
    const c = out.annotations[2]!;
    expect(c.converted).toBe('circleToPolygon');
    const ring = (c.geometry as { points: [number, number][] }).points;
    // radius 100: the chord's midpoint lies within 0.5 px of the circle
    const n = ring.length;
    expect(n).toBeGreaterThanOrEqual(32);
    expect(100 * (1 - Math.cos(Math.PI / n))).toBeLessThan(0.5);
    for (const [x, y] of ring) expect(Math.hypot(x - 200, y - 200)).toBeCloseTo(100, 6);
    expect(skips(out)).toEqual({ point: 1, line: 2 });
    expect(out.embedded).toEqual([]);
  });

  it('reads a 5.x file: description as OCR text, rectangle corners in any order, mask shapes traced into polygons', async () => {
    // labelme saves a mask as a 0/1 PNG over the rectangle of its two points, pasted at their whole-pixel corner.
    const bits = Buffer.alloc(10 * 8);
    for (let y = 1; y <= 5; y++) for (let x = 2; x <= 6; x++) bits[y * 10 + x] = 1;
    for (const [x, y] of [[8, 6], [9, 6], [8, 7], [9, 7]] as const) bits[y * 10 + x] = 1;
    const mask = (b: Buffer) => sharp(b, { raw: { width: 10, height: 8, channels: 1 } }).png().toBuffer().then((x) => x.toString('base64'));
    const doc = {
      version: '5.4.1',
      flags: {},
      shapes: [
        { label: 'plate', points: [[90, 40], [10, 20]], group_id: null, description: 'AB-1234', shape_type: 'rectangle', flags: {}, mask: null },
        { label: 'Straße', points: [[1, 1], [9, 1], [5, 8]], group_id: null, description: '', shape_type: 'polygon', flags: {}, mask: null },
        { label: 'blob', points: [[20.7, 30.2], [29.7, 37.2]], group_id: null, description: '', shape_type: 'mask', flags: {}, mask: await mask(bits) },
        { label: 'blob', points: [[5, 5], [7, 7]], group_id: null, description: '', shape_type: 'mask', flags: {}, mask: 'iVBORw0KGgo=' },
        { label: 'blob', points: [[5, 5], [14, 12]], group_id: null, description: '', shape_type: 'mask', flags: {}, mask: await mask(Buffer.alloc(80)) },
      ],
      imagePath: 'plate.png',
      imageData: null,
      imageHeight: 100,
      imageWidth: 200,
    };
    const out = await parse(doc, 'plate.json');
    expect(out.annotations.slice(0, 2).map((a) => [a.label, a.geometry])).toEqual([
      ['plate', { kind: 'box', x1: 10, y1: 20, x2: 90, y2: 40, text: 'AB-1234' }],
      ['Straße', { kind: 'polygon', points: [[1, 1], [9, 1], [5, 8]] }],
    ]);
    const blob = out.annotations[2]!;
    expect(blob.converted).toBe('maskToPolygon');
    const bounds = (g: Geometry) => {
      const pts = (g as { points: [number, number][] }).points;
      return [Math.min(...pts.map((p) => p[0])), Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[1]))];
    };
    // the 5 x 5 island at mask (2, 1) pasted at (20, 30); the 2 x 2 island as a further part
    expect(bounds(blob.geometry)).toEqual([22, 31, 27, 36]);
    expect(blob.moreParts?.map(bounds)).toEqual([[28, 36, 30, 38]]);
    expect(out.annotations).toHaveLength(3);
    expect(fields(out)).toEqual(['annotationBadField shapes[3].mask']);
    expect(skips(out)).toEqual({ invalid: 1 });
  });

  it('reads an X-AnyLabeling file: rotation → rotated box from its corners, 4-point rectangles, circles, difficult, attributes.text', async () => {
    // A 60 x 20 box centred at (100, 50), turned 30° clockwise; X-AnyLabeling writes direction in radians.
    const a = (30 * Math.PI) / 180;
    const corner = (x: number, y: number) => [100 + x * Math.cos(a) - y * Math.sin(a), 50 + x * Math.sin(a) + y * Math.cos(a)];
    const base = { group_id: null, description: '', difficult: false, flags: {}, attributes: {}, kie_linking: [] };
    const doc = {
      version: '2.4.4',
      flags: {},
      shapes: [
        { ...base, label: 'ship', score: 0.91, points: [corner(-30, -10), corner(30, -10), corner(30, 10), corner(-30, 10)], shape_type: 'rotation', direction: a },
        { ...base, label: 'car', score: null, points: [[10, 20], [50, 20], [50, 60], [10, 60]], shape_type: 'rectangle', difficult: true },
        { ...base, label: 'text', points: [[5, 5], [45, 5], [45, 15], [5, 15]], shape_type: 'rectangle', attributes: { text: '京A·12345' } },
        { ...base, label: 'hole', points: [[30, 30], [33, 34]], shape_type: 'circle' },
        { ...base, label: 'kp', points: [[1, 1]], shape_type: 'point' },
        { ...base, label: 'wire', points: [[1, 1], [5, 5]], shape_type: 'line' },
        { ...base, label: 'wire', points: [[1, 1], [5, 5], [9, 1]], shape_type: 'linestrip' },
        { ...base, label: 'box3d', points: [[1, 1], [5, 5], [9, 1], [3, 3]], shape_type: 'cuboid' },
      ],
      imagePath: 'ship.jpg',
      imageData: null,
      imageHeight: 1080,
      imageWidth: 1920,
    };
    const out = await parse(doc);
    expect(kinds(out)).toEqual(['rbox', 'box', 'box', 'polygon']);
    const r = out.annotations[0]!.geometry as Extract<Geometry, { kind: 'rbox' }>;
    expect(r.cx).toBeCloseTo(100, 6);
    expect(r.cy).toBeCloseTo(50, 6);
    expect(r.w).toBeCloseTo(60, 6);
    expect(r.h).toBeCloseTo(20, 6);
    expect(r.angle).toBeCloseTo(30, 6);
    expect(out.annotations[1]).toMatchObject({ label: 'car', difficult: true, geometry: { kind: 'box', x1: 10, y1: 20, x2: 50, y2: 60 } });
    expect(out.annotations[0]!.difficult).toBeUndefined();
    expect(out.annotations[2]!.geometry.text).toBe('京A·12345');
    expect(out.annotations[3]!.converted).toBe('circleToPolygon');
    expect((out.annotations[3]!.geometry as { points: unknown[] }).points.length).toBeGreaterThanOrEqual(8);
    expect(skips(out)).toEqual({ point: 1, line: 2, 'unsupportedShape:cuboid': 1 });
    expect(out.problems).toEqual([]);
  });

  it('keeps a four-corner rectangle that is not axis-aligned as a quadrilateral for the importer', async () => {
    const out = await parse({ version: '2.3.0', shapes: [{ label: 'x', shape_type: 'rectangle', points: [[10, 0], [20, 10], [10, 20], [0, 10]] }], imagePath: 'a.jpg' });
    expect(out.annotations[0]).toMatchObject({ quad: true, geometry: { kind: 'polygon' } });
  });

  it("takes labelme's ticked image flags as image classes", async () => {
    const out = await parse({ version: '5.4.1', flags: { cat: true, dog: false, 'sehr gut': true }, shapes: [], imagePath: 'a.jpg', imageData: null, imageHeight: 10, imageWidth: 10 });
    expect(out.classes).toEqual([
      { entry: 'a.json', image: 'a.jpg', label: 'cat' },
      { entry: 'a.json', image: 'a.jpg', label: 'sehr gut' },
    ]);
  });

  it('tells LabelMe from other JSON', () => {
    expect(isLabelMe({ images: [], annotations: [], categories: [] })).toBe(false);
    expect(isLabelMe({ shapes: [] })).toBe(false);
    expect(isLabelMe([{ shapes: [] }])).toBe(false);
    expect(isLabelMe({ shapes: null, imagePath: 'a.jpg' })).toBe(true);
    expect(isLabelMe({ shapes: [], imageData: null })).toBe(true);
  });
});

describe('LabelMe image references', () => {
  it.each([
    ['a.jpg', 'labels/a.json', 'labels/a.jpg'],
    ['../images/a.jpg', 'labels/a.json', 'images/a.jpg'],
    ['..\\images\\a.jpg', 'labels/a.json', 'images/a.jpg'],
    ['..\\..\\..\\images\\a.jpg', 'a.json', 'images/a.jpg'],
    ['C:\\Users\\ann\\Desktop\\data\\img_7.png', 'x/img_7.json', 'img_7.png'],
    ['/home/ann/data/img_7.png', 'img_7.json', 'img_7.png'],
    ['a.json', 'labels/a.json', 'labels/a'],
    ['other.JSON', 'b.json', 'b'],
    ['', 'labels/a.json', 'labels/a'],
    ['../images/', 'labels/a.json', 'labels/a'],
    ['  ', 'a.json', 'a'],
  ])('imagePath %j in %s → %s', (imagePath, entry, ref) => expect(imageRef(entry, imagePath)).toBe(ref));

  it('falls back to the JSON itself when imagePath is missing or null, and records the image even with no shapes', async () => {
    const out = await parse({ version: '5.0.1', shapes: [], imagePath: null, imageData: null, imageWidth: 10, imageHeight: 10 }, 'dir/b.json');
    expect([...out.images]).toEqual(['dir/b']);
    expect(out.annotations).toEqual([]);
  });

  it('hands embedded imageData on, named by imagePath or by the JSON and the bytes', async () => {
    const image = await png();
    const jpeg = await sharp(Buffer.alloc(8 * 8 * 3, 30), { raw: { width: 8, height: 8, channels: 3 } }).jpeg().toBuffer();
    const named = await parse({ version: '5.4.1', shapes: [], imagePath: 'folder\\photo.PNG', imageData: image.toString('base64') }, 'p.json');
    expect(named.embedded.map((e) => [e.entry, e.name])).toEqual([['p.json', 'photo.PNG']]);
    const self = await parse({ version: '5.4.1', shapes: [], imagePath: 'q.json', imageData: image.toString('base64') }, 'x/q.json');
    expect(self.embedded.map((e) => e.name)).toEqual(['q.png']);
    expect([...self.images]).toEqual(['x/q']);
    const noExt = await parse({ shapes: [], imagePath: 'frame_0001', imageData: jpeg.toString('base64') }, 'frame_0001.json');
    expect(noExt.embedded.map((e) => e.name)).toEqual(['frame_0001.jpg']);
    expect(noExt.embedded[0]!.data.equals(jpeg)).toBe(true);
  });

  it('refuses imageData that is not base64 of an image, and keeps the shapes', async () => {
    const shapes = [{ label: 'x', shape_type: 'rectangle', points: [[1, 1], [5, 5]] }];
    const notBase64 = await parse({ shapes, imagePath: 'a.jpg', imageData: '<<not base64>>' });
    expect(fields(notBase64)).toEqual(['annotationBadField imageData text']);
    expect(notBase64.annotations).toHaveLength(1);
    const notImage = await parse({ shapes, imagePath: 'a.jpg', imageData: Buffer.from('plain text, no picture').toString('base64') });
    expect(fields(notImage)).toEqual(['annotationBadField imageData']);
    const wrongType = await parse({ shapes, imagePath: 'a.jpg', imageData: 42 });
    expect(fields(wrongType)).toEqual(['annotationBadField imageData text']);
    expect(notImage.embedded).toEqual([]);
  });
});

describe('LabelMe malformed files', () => {
  const one = (s: unknown) => parse({ version: '5.4.1', shapes: [s], imagePath: 'a.jpg', imageWidth: 100, imageHeight: 100 });
  it.each([
    ['a shape that is null', null, 'shapes[0] object'],
    ['points as a string', { label: 'x', shape_type: 'polygon', points: '1,2,3' }, 'shapes[0].points points'],
    ['a coordinate as a string', { label: 'x', shape_type: 'rectangle', points: [[1, 2], ['30', 40]] }, 'shapes[0].points[1] points'],
    ['a coordinate NaN', { label: 'x', shape_type: 'rectangle', points: [[1, 2], [NaN, 40]] }, 'shapes[0].points[1] points'],
    ['a coordinate 1e300', { label: 'x', shape_type: 'polygon', points: [[1, 2], [1e300, 40], [3, 3]] }, 'shapes[0].points[1] points'],
    ['a point with one value', { label: 'x', shape_type: 'polygon', points: [[1, 2], [3], [3, 3]] }, 'shapes[0].points[1] points'],
    ['a label that is an object', { label: { x: 1 }, shape_type: 'rectangle', points: [[1, 2], [30, 40]] }, 'shapes[0].label text'],
    ['no label', { shape_type: 'rectangle', points: [[1, 2], [30, 40]] }, 'shapes[0].label text'],
    ['a shape_type that is a number', { label: 'x', shape_type: 3, points: [[1, 2], [30, 40]] }, 'shapes[0].shape_type text'],
    ['a rectangle of 3 points', { label: 'x', shape_type: 'rectangle', points: [[1, 2], [30, 40], [5, 5]] }, 'shapes[0].points points'],
    ['a rotation of 2 points', { label: 'x', shape_type: 'rotation', points: [[1, 2], [30, 40]] }, 'shapes[0].points corners'],
    ['a circle of 1 point', { label: 'x', shape_type: 'circle', points: [[1, 2]] }, 'shapes[0].points points'],
  ])('%s → badField with its place', async (_name, s, expected) => {
    const out = await one(s);
    expect(fields(out)).toEqual([`annotationBadField ${expected}`]);
    expect(out.annotations).toEqual([]);
  });

  it('names the whole file when shapes or imagePath are of the wrong type, and stores nothing of it', async () => {
    for (const [doc, expected] of [
      [{ shapes: null, imagePath: 'a.jpg' }, 'annotationBadField shapes list'],
      [{ shapes: { 0: {} }, imagePath: 'a.jpg' }, 'annotationBadField shapes list'],
      [{ shapes: [], imagePath: 7 }, 'annotationBadField imagePath text'],
    ] as const) {
      const out = await parse(doc);
      expect(fields(out)).toEqual([expected]);
      expect(out.images.size).toBe(0);
    }
  });

  it('skips empty labels, degenerate circles and two-point polygons by reason; a polygon over the vertex limit is refused', async () => {
    const out = await parse({
      shapes: [
        { label: '  ', shape_type: 'rectangle', points: [[1, 2], [30, 40]] },
        { label: 'x', shape_type: 'circle', points: [[5, 5], [5, 5]] },
        { label: 'x', shape_type: 'polygon', points: [[5, 5], [6, 6]] },
        { label: 'x', shape_type: 'polygon', points: Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => [i % 200, i % 100]) },
        { label: 7, shape_type: 'rectangle', points: [[1, 2], [30, 40]] },
      ],
      imagePath: 'a.jpg',
    });
    expect(skips(out)).toEqual({ noLabel: 1, invalid: 2 });
    expect(out.skips.reduce((n, s) => n + s.count, 0)).toBe(3);
    expect(out.problems.map((p) => p.key)).toEqual(['annotationTooManyPoints']);
    expect(out.annotations.map((a) => a.label)).toEqual(['7']);
  });
});

describe('LabelMe round trip (writer → parser)', () => {
  it('gives back boxes, rotated boxes at 0, 30, 95 and −45°, polygons, OCR text and non-ASCII labels', async () => {
    const shapes: { label: string; geometry: Geometry }[] = [
      { label: 'box', geometry: { kind: 'box', x1: 10.125, y1: 20.5, x2: 110.75, y2: 80 } },
      ...[0, 30, 95, -45].map((angle) => ({ label: `r${angle}`, geometry: { kind: 'rbox' as const, cx: 200.5, cy: 150.25, w: 80.4, h: 30.2, angle } })),
      { label: 'Schraube', geometry: { kind: 'polygon', points: [[1.5, 2.25], [50.125, 3], [40, 60.875], [2, 40]] } },
      { label: '文字', geometry: { kind: 'box', x1: 5, y1: 5, x2: 60, y2: 20, text: 'Größe 12 — №5' } },
      { label: 'ocr-rot', geometry: { kind: 'rbox', cx: 60, cy: 60, w: 40, h: 12, angle: 12.5, text: 'LOT 7' } },
    ];
    const img: ExportImage = { file: 'part 1.jpg', width: 640, height: 480, annotations: shapes.map((s, i) => ({ ...s, labelIndex: i })) };
    const files = labelMeWriter.files([img, { file: 'part 1.png', width: 10, height: 10, annotations: [] }], shapes.map((s) => s.label));
    expect(files.map((f) => f.path)).toEqual(['part 1.json', 'part 1.png.json']);
    const doc = JSON.parse(files[0]!.data.toString('utf8')) as Record<string, unknown>;
    expect(doc).toMatchObject({ version: '5.4.1', imagePath: 'part 1.jpg', imageData: null, imageWidth: 640, imageHeight: 480 });
    const out = await parse(doc, files[0]!.path);
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => a.label)).toEqual(shapes.map((s) => s.label));
    expect([...out.images]).toEqual(['part 1.jpg']);
    for (const [i, a] of out.annotations.entries()) {
      const want = shapes[i]!.geometry;
      const got = a.geometry;
      expect(got.kind, a.label).toBe(want.kind);
      expect(got.text, a.label).toBe(want.text);
      if (want.kind === 'rbox' && got.kind === 'rbox') {
        for (const k of ['cx', 'cy', 'w', 'h'] as const) expect(Math.abs(got[k] - want[k]), `${a.label} ${k}`).toBeLessThan(0.01);
        const turn = (((got.angle - want.angle) % 360) + 540) % 360 - 180;
        expect(Math.abs(turn), `${a.label} angle ${got.angle}`).toBeLessThan(0.01);
      } else if (want.kind === 'box' && got.kind === 'box') {
        for (const k of ['x1', 'y1', 'x2', 'y2'] as const) expect(Math.abs(got[k] - want[k]), `${a.label} ${k}`).toBeLessThan(0.01);
      } else if (want.kind === 'polygon' && got.kind === 'polygon') {
        expect(got.points.flat().map((v, k) => Math.abs(v - want.points.flat()[k]!)).every((d) => d < 0.01)).toBe(true);
      }
    }
    const rotated = (doc.shapes as { shape_type: string; direction?: number; points: unknown[] }[]).filter((s) => s.shape_type === 'rotation');
    expect(rotated.map((s) => [s.points.length, s.direction])).toEqual([
      [4, 0],
      [4, 0.523599],
      [4, 1.658063],
      [4, 5.497787],
      [4, 0.218166],
    ]);
  });
});
