import { describe, expect, it } from 'vitest';
import type { Geometry } from '@loupe/contracts';
import { dotaWriter, isDota, minAreaRect, parseDota } from '../src/services/formats/dota.js';
import { emptyParsed, toExportable, type ExportImage, type Parsed } from '../src/services/formats/types.js';

/**
 * DOTA labelTxt as the DOTA releases (v1.0 with integer corners, v1.5 with floats and gsd:null), mmrotate and
 * Roboflow's DOTA export (no header lines) write it (issue 33): `x1 y1 x2 y2 x3 y3 x4 y4 class difficult`.
 */
async function read(entry: string, text: string): Promise<Parsed> {
  const out = emptyParsed();
  await parseDota(entry, text, out);
  return out;
}
const fields = (out: Parsed) => out.problems.map((p) => `${String(p.vars?.field)}:${String(p.vars?.expected)}`);
type Pt = [number, number];
const pointsOf = (g: Geometry) => (g as { points: Pt[] }).points;

const v10 = 'imagesource:GoogleEarth\ngsd:0.146343590398\n2753 2408 2861 2385 2888 2468 2805 2502 plane 0\n3445 3391 3484 3409 3478 3422 3437 3402 large-vehicle 0\n3185 4158 3195 4161 3175 4204 3164 4199 small-vehicle 1\n';
const v15 = 'imagesource:GoogleEarth\r\ngsd:null\r\n1054.0 1028.0 1063.0 1032.0 1053.0 1055.0 1045.0 1051.0 ship 0\r\n';
const mmrotate = '10.5 20.5 110.5 20.5 110.5 60.5 10.5 60.5 storage-tank 1\n200 200 260 200 260 230 200 230 harbor\n';

describe('isDota', () => {
  it.each([
    ['DOTA v1.0', 'train/labelTxt/P0000.txt', v10, true],
    ['DOTA v1.5 with CRLF', 'labelTxt-v1.5/P0001.txt', v15, true],
    ['no headers (mmrotate, Roboflow)', 'annfiles/P0002.txt', mmrotate, true],
    ['headers only: an image with no objects', 'labelTxt/P0003.txt', 'imagesource:GoogleEarth\ngsd:null\n', true],
    ['a YOLO OBB file', 'labels/a.txt', '0 0.1 0.1 0.2 0.1 0.2 0.2 0.1 0.2\n', false],
    ['a YOLO box file', 'labels/b.txt', '0 0.5 0.5 0.1 0.1\n', false],
    ['a class list', 'classes.txt', 'plane\nship\n', false],
    ['a list file', 'train.txt', 'images/P0000.png\n', false],
    ['an empty file', 'labelTxt/P0004.txt', '', false],
    ['not a .txt', 'labelTxt/P0000.csv', v10, false],
  ])('%s', (_, path, text, want) => expect(isDota(path, text)).toBe(want));
});

describe('DOTA variants', () => {
  it('DOTA v1.0: headers skipped, each line a four-corner quad, difficult 1 flagged, labelTxt/ → images/', async () => {
    const out = await read('train/labelTxt/P0000.txt', v10);
    expect(out.problems).toEqual([]);
    expect(out.files.get('train/labelTxt/P0000.txt')).toBe('dota');
    expect([...out.images]).toEqual(['train/images/P0000']);
    expect(out.annotations.map((a) => [a.label, a.quad, a.difficult])).toEqual([
      ['plane', true, undefined],
      ['large-vehicle', true, undefined],
      ['small-vehicle', true, true],
    ]);
    expect(out.annotations[0]).toEqual({ entry: 'train/labelTxt/P0000.txt', image: 'train/images/P0000', label: 'plane', quad: true, geometry: { kind: 'polygon', points: [[2753, 2408], [2861, 2385], [2888, 2468], [2805, 2502]] } });
    expect(out.annotations[0]!.normalized).toBeUndefined();
  });

  it('DOTA v1.5: float corners, gsd:null, CRLF', async () => {
    const out = await read('labelTxt-v1.5/P0001.txt', v15);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['images/P0001']);
    expect(pointsOf(out.annotations[0]!.geometry)).toEqual([[1054, 1028], [1063, 1032], [1053, 1055], [1045, 1051]]);
  });

  it('no headers, no difficulty on a line, a class of several words, a BOM, blank lines', async () => {
    const out = await read('annfiles/P0002.txt', `\uFEFF${mmrotate}\n  \n5 5 50 5 50 40 5 40 storage tank 0\n`);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['annfiles/P0002']);
    expect(out.annotations.map((a) => [a.label, a.difficult])).toEqual([
      ['storage-tank', true],
      ['harbor', undefined],
      ['storage tank', undefined],
    ]);
  });

  it('headers only: the image is described, with no shapes', async () => {
    const out = await read('labelTxt/P0003.txt', 'imagesource:GoogleEarth\ngsd:null\n');
    expect([...out.images]).toEqual(['images/P0003']);
    expect(out.annotations).toEqual([]);
    expect(out.problems).toEqual([]);
  });
});

describe('malformed DOTA lines: badField with the line, never a throw', () => {
  it.each([
    ['a corner that is text', '10 10 abc 10 50 40 10 40 plane 0', 'line 2:corners'],
    ['NaN', '10 10 NaN 10 50 40 10 40 plane 0', 'line 2:corners'],
    ['1e300', '10 10 1e300 10 50 40 10 40 plane 0', 'line 2:corners'],
    ['too few values', '10 10 50 10 50 40 10 plane 0', 'line 2:corners'],
    ['no class', '10 10 50 10 50 40 10 40', 'line 2:corners'],
    ['a difficulty that is not a number', '10 10 50 10 50 40 10 40 plane hard', 'line 2:number'],
  ])('%s', async (_, line, want) => {
    const out = await read('labelTxt/a.txt', `imagesource:x\n${line}\n1 1 9 1 9 9 1 9 good 0\n`);
    expect(fields(out)).toEqual([want]);
    expect(out.problems[0]).toMatchObject({ entry: 'labelTxt/a.txt', key: 'annotationBadField', vars: { entry: 'labelTxt/a.txt' } });
    expect(out.annotations.map((a) => a.label)).toEqual(['good']);
  });
});

describe('minAreaRect', () => {
  it('finds a rotated rectangle from its corners and inner points, clockwise on screen', () => {
    const g: Geometry = { kind: 'rbox', cx: 50, cy: 40, w: 60, h: 20, angle: 30 };
    const corners = pointsOf(toExportable(g));
    const inner: Pt[] = [[50, 40], [45, 38], [55, 43]];
    const rect = minAreaRect([...inner, ...corners]);
    expect(rect).toHaveLength(4);
    for (const c of corners) expect(rect.some((r) => Math.hypot(r[0] - c[0], r[1] - c[1]) < 1e-9)).toBe(true);
    const signed = rect.reduce((s, p, k) => s + p[0] * rect[(k + 1) % 4]![1] - rect[(k + 1) % 4]![0] * p[1], 0);
    expect(signed).toBeGreaterThan(0);
  });

  it('a right triangle: the rectangle on its legs (area 2 × triangle), not a larger one', () => {
    const rect = minAreaRect([[0, 0], [10, 0], [0, 4]]);
    const area = Math.abs(rect.reduce((s, p, k) => s + p[0] * rect[(k + 1) % 4]![1] - rect[(k + 1) % 4]![0] * p[1], 0)) / 2;
    expect(area).toBeCloseTo(40, 6);
  });
});

describe('DOTA round trip: dotaWriter → isDota → parseDota', () => {
  const rbox = (angle: number): Geometry => ({ kind: 'rbox', cx: 320.5, cy: 200.25, w: 150, h: 60.5, angle });
  const shapes: { label: string; geometry: Geometry }[] = [
    { label: 'box', geometry: { kind: 'box', x1: 10.25, y1: 20.5, x2: 110, y2: 90.125 } },
    ...[0, 30, 95, -45].map((a) => ({ label: `rbox${a}`, geometry: rbox(a) })),
    { label: 'quad', geometry: { kind: 'polygon', points: [[5, 5], [60.5, 8], [70, 66.25], [12, 50]] } },
    { label: 'five corners', geometry: { kind: 'polygon', points: [[1, 1], [9, 2], [8, 8], [2, 9], [0, 5]], text: 'not carried' } },
  ];

  it('boxes and rotated boxes come back as their four corners, quads as they are, other polygons as their smallest rectangle', async () => {
    const img: ExportImage = { file: 'P0000.png', width: 640, height: 480, annotations: shapes.map((s, i) => ({ ...s, labelIndex: i })) };
    const blank: ExportImage = { file: 'P0001.png', width: 640, height: 480, annotations: [] };
    const files = dotaWriter.files([img, blank], shapes.map((s) => s.label));
    expect(dotaWriter.imageDir).toBe('images/');
    expect(files.map((f) => f.path)).toEqual(['labelTxt/P0000.txt', 'labelTxt/P0001.txt']);
    for (const f of files) expect(isDota(f.path, f.data.toString())).toBe(true);
    const out = await read(files[0]!.path, files[0]!.data.toString());
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['images/P0000']);
    // DOTA's class is one field: spaces travel as underscores.
    expect(out.annotations.map((a) => a.label)).toEqual(['box', 'rbox0', 'rbox30', 'rbox95', 'rbox-45', 'quad', 'five_corners']);
    for (const [i, s] of shapes.entries()) {
      const got = out.annotations[i]!;
      expect(got).toMatchObject({ quad: true, geometry: { kind: 'polygon' } });
      expect(got.difficult).toBeUndefined();
      expect(got.geometry.text).toBeUndefined();
      const want: Pt[] =
        s.geometry.kind === 'box'
          ? [[s.geometry.x1, s.geometry.y1], [s.geometry.x2, s.geometry.y1], [s.geometry.x2, s.geometry.y2], [s.geometry.x1, s.geometry.y2]]
          : s.geometry.kind === 'polygon' && s.geometry.points.length !== 4
            ? minAreaRect(s.geometry.points)
            : pointsOf(toExportable(s.geometry));
      pointsOf(got.geometry).forEach((p, k) => {
        expect(Math.abs(p[0] - want[k]![0])).toBeLessThan(0.01);
        expect(Math.abs(p[1] - want[k]![1])).toBeLessThan(0.01);
      });
    }
    // The five-corner polygon's rectangle holds every one of its points.
    const rect = pointsOf(out.annotations[6]!.geometry);
    const inside = (p: Pt) => rect.every((a, k) => {
      const b = rect[(k + 1) % 4]!;
      return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= -0.01;
    });
    expect(pointsOf(shapes[6]!.geometry).every(inside)).toBe(true);
    const empty = await read(files[1]!.path, files[1]!.data.toString());
    expect([...empty.images]).toEqual(['images/P0001']);
    expect(empty.annotations).toEqual([]);
  });
});
