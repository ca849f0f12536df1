import { describe, expect, it } from 'vitest';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { cvatWriter, isCvat, parseCvat } from '../src/services/formats/cvat.js';
import { emptyParsed, type ExportImage, type Parsed } from '../src/services/formats/types.js';
import { parseXml } from '../src/services/gallery/workers.js';

/**
 * "CVAT for images" XML 1.1 as CVAT dumps it (cvat/apps/dataset_manager/formats/cvat.py: attributes in this
 * order, coordinates as %.2f, rotation only when not 0, masks as run lengths over their own rectangle).
 */

const header = (labels: string[]) => `<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta>
    <task>
      <id>12</id>
      <name>parts</name>
      <size>2</size>
      <mode>annotation</mode>
      <overlap>0</overlap>
      <bugtracker></bugtracker>
      <created>2025-03-01 10:00:00.000000+00:00</created>
      <labels>
${labels.map((l) => `        <label>\n          <name>${l}</name>\n          <color>#fa3253</color>\n          <type>any</type>\n          <attributes>\n            <attribute>\n              <name>text</name>\n              <mutable>False</mutable>\n              <input_type>text</input_type>\n              <default_value></default_value>\n              <values></values>\n            </attribute>\n          </attributes>\n        </label>`).join('\n')}
      </labels>
    </task>
    <dumped>2025-03-02 10:00:00.000000+00:00</dumped>
  </meta>
`;
const f2 = (n: number) => n.toFixed(2);
const boxXml = (label: string, x1: number, y1: number, x2: number, y2: number, extra = '', inner = '') =>
  `    <box label="${label}" source="manual" occluded="0" xtl="${f2(x1)}" ytl="${f2(y1)}" xbr="${f2(x2)}" ybr="${f2(y2)}"${extra} z_order="0">${inner}\n    </box>`;

async function parse(xml: string, entry = 'annotations.xml', out: Parsed = emptyParsed()): Promise<Parsed> {
  const r = await parseXml(Buffer.from(xml), 32, 'cvat');
  if (!('doc' in r)) throw new Error(`unreadable: ${r.error}`);
  await parseCvat(entry, r.doc, out);
  return out;
}
const fields = (out: Parsed) => out.problems.map((p) => [p.vars?.field, p.vars?.expected]);
const area = (pts: [number, number][]) => Math.abs(pts.reduce((s, [x, y], i) => s + x * pts[(i + 1) % pts.length]![1] - pts[(i + 1) % pts.length]![0] * y, 0)) / 2;
const pointsOf = (g: Geometry) => (g.kind === 'polygon' ? g.points : []);
const corners = (g: Geometry) => {
  if (g.kind !== 'rbox') return [];
  const a = (g.angle * Math.PI) / 180;
  return [[-1, -1], [1, -1], [1, 1], [-1, 1]].map(([sx, sy]) => [g.cx + (sx! * g.w * Math.cos(a)) / 2 - (sy! * g.h * Math.sin(a)) / 2, g.cy + (sx! * g.w * Math.sin(a)) / 2 + (sy! * g.h * Math.cos(a)) / 2]);
};

/** CVAT's mask rle: run lengths from background, row-major within the mask's own rectangle. */
function rowRuns(mask: Uint8Array): number[] {
  const runs: number[] = [];
  let prev = 0;
  let run = 0;
  for (const v of mask) {
    if (v !== prev) {
      runs.push(run);
      run = 0;
      prev = v;
    }
    run++;
  }
  runs.push(run);
  return runs;
}

describe('CVAT for images 1.1', () => {
  it('is told apart from Pascal VOC and other XML', () => {
    expect(isCvat(`${header(['a'])}</annotations>`)).toBe(true);
    expect(isCvat('<?xml version="1.0"?>\n<!-- export -->\n<annotations>\n  <image id="0" name="a.jpg" width="1" height="1"/>\n</annotations>')).toBe(true);
    expect(isCvat('<annotation><folder>VOC</folder><filename>a.jpg</filename><object><name>x</name></object></annotation>')).toBe(false);
    expect(isCvat('<annotations><annotation><filename>a.jpg</filename></annotation></annotations>')).toBe(false);
    expect(isCvat('<doc><annotations><version>1.1</version></annotations></doc>')).toBe(false);
    expect(isCvat('\uFEFF<?xml version="1.0"?><!-- a --><!-- b -->\n<annotations><version>1.1</version></annotations>')).toBe(true);
    expect(isCvat('<?xml version="1.0"?')).toBe(false);
    expect(isCvat('<!-- never closed <annotations><version>1.1</version>')).toBe(false);
    // A prolog built to make a backtracking pattern run for ever is read in linear time.
    const t0 = performance.now();
    expect(isCvat(`${'<??>'.repeat(20_000)}x`)).toBe(false);
    expect(isCvat(`${'<!---->'.repeat(20_000)}<annotations><image name="a.jpg"/></annotations>`)).toBe(true);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('reads boxes, rotated boxes, polygons, ellipses, masks and tags; skips lines, points, cuboids and skeletons by reason', async () => {
    const mw = 30;
    const mh = 20;
    const m = new Uint8Array(mw * mh);
    for (let y = 2; y < 18; y++) for (let x = 3; x < 27; x++) m[y * mw + x] = 1;
    for (let y = 0; y < 2; y++) for (let x = 0; x < 2; x++) m[y * mw + x] = 1; // a 4 px island: kept
    const xml = `${header(['Schraube', 'ナット', 'text'])}  <image id="0" name="line 1/cam_01.jpg" width="640" height="480">
${boxXml('Schraube', 10, 20, 110.5, 70.25)}
${boxXml('ナット', 200, 100, 260, 130, ' rotation="33.50"')}
${boxXml('text', 300, 300, 400, 330, '', '\n      <attribute name="text">LOT 42 Ä</attribute>')}
    <polygon label="Schraube" source="manual" occluded="0" points="10.00,10.00;50.00,10.00;50.00,40.00;10.00,40.00" z_order="0">
      <attribute name="transcription">A-1</attribute>
    </polygon>
    <ellipse label="ナット" source="manual" occluded="0" cx="320.00" cy="240.00" rx="40.00" ry="20.00" rotation="90.00" z_order="0">
    </ellipse>
    <mask label="Schraube" source="semi-auto" occluded="0" rle="${rowRuns(m).join(', ')}" left="100" top="200" width="${mw}" height="${mh}" z_order="0">
    </mask>
    <polyline label="Schraube" source="manual" occluded="0" points="1.00,1.00;5.00,5.00" z_order="0">
    </polyline>
    <points label="Schraube" source="manual" occluded="0" points="1.00,1.00" z_order="0">
    </points>
    <points label="Schraube" source="manual" occluded="0" points="2.00,2.00" z_order="0">
    </points>
    <cuboid label="Schraube" source="manual" occluded="0" xtl1="1" ytl1="1" xbl1="1" ybl1="5" xtr1="5" ytr1="1" xbr1="5" ybr1="5" xtl2="6" ytl2="1" xbl2="6" ybl2="5" xtr2="9" ytr2="1" xbr2="9" ybr2="5" z_order="0">
    </cuboid>
    <skeleton label="Schraube" source="manual" z_order="0">
      <points label="head" source="manual" outside="0" occluded="0" points="3.00,3.00">
      </points>
    </skeleton>
    <tag label="gut" source="manual">
    </tag>
  </image>
  <image id="1" name="cam_02" width="640" height="480">
  </image>
</annotations>
`;
    const out = await parse(xml);
    expect(out.problems).toEqual([]);
    expect(out.files.get('annotations.xml')).toBe('cvat');
    expect([...out.images]).toEqual(['line 1/cam_01.jpg', 'cam_02']);
    expect(out.annotations.map((a) => [a.geometry.kind, a.label, a.converted ?? '', a.moreParts?.length ?? 0])).toEqual([
      ['box', 'Schraube', '', 0],
      ['rbox', 'ナット', '', 0],
      ['box', 'text', '', 0],
      ['polygon', 'Schraube', '', 0],
      ['polygon', 'ナット', 'circleToPolygon', 0],
      ['polygon', 'Schraube', 'maskToPolygon', 1],
    ]);
    const [box, rbox, ocr, poly, ellipse, mask] = out.annotations.map((a) => a.geometry) as Geometry[];
    expect(box).toEqual({ kind: 'box', x1: 10, y1: 20, x2: 110.5, y2: 70.25 });
    expect(rbox).toEqual({ kind: 'rbox', cx: 230, cy: 115, w: 60, h: 30, angle: 33.5 });
    expect(ocr!.text).toBe('LOT 42 Ä');
    expect(poly!.text).toBe('A-1');
    // Rotated 90°: the ellipse is 40 wide and 80 tall.
    const ys = pointsOf(ellipse!).map((p) => p[1]);
    expect(Math.max(...ys) - Math.min(...ys)).toBeCloseTo(80, 0);
    expect(Math.abs(area(pointsOf(ellipse!)) - Math.PI * 800) / (Math.PI * 800)).toBeLessThan(0.02);
    expect(area(pointsOf(mask!))).toBe(16 * 24);
    expect(Math.min(...pointsOf(mask!).map((p) => p[0]))).toBe(103);
    expect(Math.min(...pointsOf(mask!).map((p) => p[1]))).toBe(202);
    expect(out.annotations[5]!.moreParts![0]).toMatchObject({ kind: 'polygon', points: expect.arrayContaining([[100, 200]]) });
    expect(out.classes).toEqual([{ entry: 'annotations.xml', image: 'line 1/cam_01.jpg', label: 'gut' }]);
    expect(out.skips.map((s) => [s.reason, s.count, s.vars?.kind ?? ''])).toEqual([
      ['line', 1, ''],
      ['point', 2, ''],
      ['unsupportedShape', 1, 'cuboid'],
      ['unsupportedShape', 1, 'skeleton'],
    ]);
  });

  it('skips the shapes of a CVAT for video file as tracks, not silently', async () => {
    const xml = `${header(['car'])}  <track id="0" label="car" source="manual">
    <box frame="0" keyframe="1" outside="0" occluded="0" xtl="1.00" ytl="2.00" xbr="30.00" ybr="40.00" z_order="0">
    </box>
    <box frame="1" keyframe="1" outside="1" occluded="0" xtl="1.00" ytl="2.00" xbr="30.00" ybr="40.00" z_order="0">
    </box>
  </track>
  <track id="1" label="car" source="manual">
    <polygon frame="0" keyframe="1" outside="0" occluded="0" points="1.00,1.00;9.00,1.00;9.00,9.00" z_order="0">
    </polygon>
  </track>
</annotations>`;
    expect(isCvat(xml)).toBe(true);
    const out = await parse(xml);
    expect(out.annotations).toEqual([]);
    expect(out.skips.map((s) => [s.reason, s.count, s.vars?.kind])).toEqual([
      ['unsupportedShape', 2, 'track'],
      ['unsupportedShape', 1, 'track'],
    ]);
  });

  it('reads a file with no images and one with an empty root', async () => {
    expect((await parse(`${header(['a'])}</annotations>`)).problems).toEqual([]);
    const out = await parse('<annotations></annotations>');
    expect([out.problems, out.annotations, out.images.size]).toEqual([[], [], 0]);
  });
});

describe('malformed CVAT files name the place and what was expected', () => {
  const img = (shapes: string) => `<annotations><version>1.1</version><image id="0" name="a.jpg" width="200" height="100">${shapes}</image></annotations>`;
  it.each([
    ['a coordinate that is not a number', img('<box label="x" xtl="abc" ytl="1" xbr="5" ybr="5"/>'), ['image[0].box[0].xtl', 'number']],
    ['a missing coordinate', img('<box label="x" xtl="1" ytl="1" xbr="5"/>'), ['image[0].box[0].ybr', 'number']],
    ['NaN', img('<box label="x" xtl="NaN" ytl="1" xbr="5" ybr="5"/>'), ['image[0].box[0].xtl', 'number']],
    ['1e300', img('<box label="x" xtl="1" ytl="1" xbr="1e300" ybr="5"/>'), ['image[0].box[0].xbr', 'number']],
    ['a negative size', img('<box label="x" xtl="9" ytl="1" xbr="5" ybr="5"/>'), ['image[0].box[0]', 'positiveSize']],
    ['a rotation that is not a number', img('<box label="x" xtl="1" ytl="1" xbr="5" ybr="5" rotation="left"/>'), ['image[0].box[0].rotation', 'number']],
    ['a shape without a label', img('<box xtl="1" ytl="1" xbr="5" ybr="5"/>'), ['image[0].box[0].label', 'text']],
    ['polygon points that are not pairs', img('<polygon label="x" points="1,2;3;4,5"/>'), ['image[0].polygon[0].points', 'points']],
    ['a polygon of two points', img('<polygon label="x" points="1,2;3,4"/>'), ['image[0].polygon[0].points', 'points']],
    ['an ellipse without a radius', img('<ellipse label="x" cx="5" cy="5" rx="0" ry="3"/>'), ['image[0].ellipse[0]', 'positiveSize']],
    ['mask runs that do not cover the rectangle', img('<mask label="x" rle="3, 4" left="0" top="0" width="4" height="4"/>'), ['image[0].mask[0].rle', 'rle']],
    ['mask runs that are not numbers', img('<mask label="x" rle="3, a, 13" left="0" top="0" width="4" height="4"/>'), ['image[0].mask[0].rle', 'rle']],
    ['a mask over 100 megapixels', img('<mask label="x" rle="100000000000" left="0" top="0" width="200000" height="500000"/>'), ['image[0].mask[0].rle', 'rle']],
    ['an image without a name', '<annotations><image id="0" width="1" height="1"><box label="x" xtl="1" ytl="1" xbr="5" ybr="5"/></image></annotations>', ['image[0].name', 'text']],
    ['a tag without a label', img('<tag source="manual"/>'), ['image[0].tag[0].label', 'text']],
    ['a root that is text', '<annotations>oops</annotations>', ['annotations', 'object']],
  ] as const)('%s', async (_, xml, expected) => {
    const out = await parse(xml, 'c.xml');
    expect(out.annotations).toEqual([]);
    expect(fields(out)).toEqual([expected]);
    expect(out.problems[0]).toMatchObject({ entry: 'c.xml', key: 'annotationBadField', vars: { entry: 'c.xml' } });
  });

  it('refuses a polygon over the vertex limit and keeps the shapes beside it', async () => {
    const many = Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => `${i % 200},${i % 100}`).join(';');
    const out = await parse(img(`<polygon label="x" points="${many}"/><box label="x" xtl="1" ytl="1" xbr="5" ybr="5"/>`));
    expect(out.problems.map((p) => p.key)).toEqual(['annotationTooManyPoints']);
    expect(out.annotations).toHaveLength(1);
  });

  it('reports a mask with no island of 4 px as a shape without area', async () => {
    const out = await parse(img('<mask label="x" rle="5, 1, 10" left="0" top="0" width="4" height="4"/>'));
    expect(out.skips.map((s) => s.reason)).toEqual(['invalid']);
  });
});

describe('CVAT round trip', () => {
  it('writes and reads back boxes, rotated boxes at several angles, polygons, OCR text and non-ASCII labels', async () => {
    const labels = ['Schraube', 'ナット', 'a & "b" <c>'];
    const shapes: { label: string; labelIndex: number; geometry: Geometry }[] = [
      { label: labels[0]!, labelIndex: 0, geometry: { kind: 'box', x1: 1.25, y1: 2.5, x2: 30.125, y2: 40 } },
      ...[0, 30, 135, 300, 359.5].map((angle) => ({ label: labels[1]!, labelIndex: 1, geometry: { kind: 'rbox', cx: 100.5, cy: 50.25, w: 40, h: 12.5, angle } as Geometry })),
      { label: labels[2]!, labelIndex: 2, geometry: { kind: 'polygon', points: [[10, 10], [60.5, 12], [40, 70.75]], text: 'Größe <7> & "8"' } },
      { label: labels[0]!, labelIndex: 0, geometry: { kind: 'box', x1: 5, y1: 5, x2: 25, y2: 15, text: 'LOT-42' } },
    ];
    const images: ExportImage[] = [
      { file: 'a.jpg', width: 200, height: 100, annotations: shapes },
      { file: 'empty.jpg', width: 200, height: 100, annotations: [] },
    ];
    const [file] = cvatWriter.files(images, labels);
    expect(cvatWriter.imageDir).toBe('images/');
    expect(file!.path).toBe('annotations.xml');
    const xml = file!.data.toString('utf8');
    expect(isCvat(xml)).toBe(true);
    expect(xml).toContain('<version>1.1</version>');
    const meta = await parseXml(file!.data, 32, 'cvat');
    const [task] = (meta as { doc: { annotations: { meta: { task: { labels: { label: { name: string }[] } }[] } } } }).doc.annotations.meta.task;
    // Escaped as XML requires (the worker leaves entities as written; the parser decodes them).
    expect(task!.labels.label.map((l) => l.name)).toEqual(['Schraube', 'ナット', 'a &amp; &quot;b&quot; &lt;c&gt;']);

    const out = await parse(xml);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['a.jpg', 'empty.jpg']);
    // CVAT groups shapes by element: boxes (and rotated boxes) first, then polygons.
    const want = [...shapes.filter((s) => s.geometry.kind !== 'polygon'), ...shapes.filter((s) => s.geometry.kind === 'polygon')];
    expect(out.annotations).toHaveLength(want.length);
    for (const [i, a] of out.annotations.entries()) {
      const w = want[i]!;
      expect([a.label, a.geometry.kind, a.geometry.text]).toEqual([w.label, w.geometry.kind, w.geometry.text]);
      const got = a.geometry as Record<string, unknown>;
      for (const [k, v] of Object.entries(w.geometry)) {
        if (typeof v === 'number') expect(Math.abs((got[k] as number) - v), k).toBeLessThan(0.01);
        if (k === 'points') (v as [number, number][]).forEach((p, j) => p.forEach((c, d) => expect(Math.abs((got.points as number[][])[j]![d]! - c)).toBeLessThan(0.01)));
      }
    }
  });

  it('writes a negative angle as CVAT does (0–360) and the box keeps its corners', async () => {
    const g: Geometry = { kind: 'rbox', cx: 50, cy: 50, w: 30, h: 10, angle: -45 };
    const [file] = cvatWriter.files([{ file: 'a.jpg', width: 100, height: 100, annotations: [{ label: 'x', labelIndex: 0, geometry: g }] }], ['x']);
    expect(file!.data.toString('utf8')).toContain('rotation="315"');
    const out = await parse(file!.data.toString('utf8'));
    corners(out.annotations[0]!.geometry).forEach((c, i) => c.forEach((v, d) => expect(Math.abs(v - corners(g)[i]![d]!)).toBeLessThan(0.01)));
  });
});
