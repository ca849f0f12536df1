import { describe, expect, it } from 'vitest';
import { LabelingLimits, Limits, type Geometry } from '@loupe/contracts';
import { parseXml } from '../src/services/gallery/workers.js';
import { parseVoc, vocWriter } from '../src/services/formats/voc.js';
import { emptyParsed, toExportable, type ExportImage, type Parsed } from '../src/services/formats/types.js';

/**
 * Pascal VOC as each tool writes it (issue 33): labelImg, roLabelImg, CVAT/Datumaro, Roboflow and Loupe's own
 * export, read through the real XML worker (every value a string) into the parser. Fixtures follow each
 * tool's writer: element order, indentation, number formatting, optional elements present or absent.
 */
async function read(entry: string, xml: string | Buffer): Promise<Parsed> {
  const r = await parseXml(typeof xml === 'string' ? Buffer.from(xml) : xml, Limits.annotationMaxDepth, 'voc');
  if ('error' in r) throw new Error(r.error);
  const out = emptyParsed();
  await parseVoc(entry, r.doc, out);
  return out;
}

const fields = (out: Parsed) => out.problems.map((p) => `${String(p.vars?.field)}:${String(p.vars?.expected)}`);
const corners = (g: Geometry) => (toExportable(g) as { points: [number, number][] }).points;
/** What "the same geometry" compares: a box's two corners, a rotated box's four, a polygon's points. */
const pointsOf = (g: Geometry): [number, number][] => (g.kind === 'box' ? [[g.x1, g.y1], [g.x2, g.y2]] : corners(g));

// labelImg (PascalVocWriter): tabs, integer pixels, <path>, <source>, every optional element present.
const labelImg = `<annotation>
\t<folder>images</folder>
\t<filename>cat_001.jpg</filename>
\t<path>/home/ana/images/cat_001.jpg</path>
\t<source>
\t\t<database>Unknown</database>
\t</source>
\t<size>
\t\t<width>640</width>
\t\t<height>480</height>
\t\t<depth>3</depth>
\t</size>
\t<segmented>0</segmented>
\t<object>
\t\t<name>cat</name>
\t\t<pose>Unspecified</pose>
\t\t<truncated>0</truncated>
\t\t<difficult>0</difficult>
\t\t<bndbox>
\t\t\t<xmin>48</xmin>
\t\t\t<ymin>240</ymin>
\t\t\t<xmax>195</xmax>
\t\t\t<ymax>371</ymax>
\t\t</bndbox>
\t</object>
\t<object>
\t\t<name>dog</name>
\t\t<pose>Unspecified</pose>
\t\t<truncated>1</truncated>
\t\t<difficult>0</difficult>
\t\t<bndbox>
\t\t\t<xmin>8</xmin>
\t\t\t<ymin>12</ymin>
\t\t\t<xmax>352</xmax>
\t\t\t<ymax>498</ymax>
\t\t</bndbox>
\t</object>
</annotation>
`;

// roLabelImg (the labelImg fork): <annotation verified="no">, filename without extension, <type> before each
// object, <robndbox> with the angle in radians (0.523599 = 30°), a plain box beside it.
const roLabelImg = `<annotation verified="no">
  <folder>ships</folder>
  <filename>P0001</filename>
  <path>D:\\data\\ships\\P0001.png</path>
  <source>
    <database>Unknown</database>
  </source>
  <size>
    <width>1024</width>
    <height>768</height>
    <depth>3</depth>
  </size>
  <segmented>0</segmented>
  <object>
    <type>robndbox</type>
    <name>ship</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <difficult>1</difficult>
    <robndbox>
      <cx>320.5</cx>
      <cy>240.25</cy>
      <w>100.0</w>
      <h>40.0</h>
      <angle>0.523599</angle>
    </robndbox>
  </object>
  <object>
    <type>robndbox</type>
    <name>ship</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <difficult>0</difficult>
    <robndbox>
      <cx>600</cx>
      <cy>400</cy>
      <w>80</w>
      <h>30</h>
      <angle>2.792527</angle>
    </robndbox>
  </object>
  <object>
    <type>bndbox</type>
    <name>buoy</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <difficult>0</difficult>
    <bndbox>
      <xmin>10</xmin>
      <ymin>20</ymin>
      <xmax>30</xmax>
      <ymax>45</ymax>
    </bndbox>
  </object>
</annotation>
`;

// X-AnyLabeling's custom_to_voc (minidom pretty print, 2 spaces): integer bndbox, polygons as <x1><y1>…
// children holding Python floats, <occluded>; a shape it has no VOC form for (a rotation, a point) still
// gets an <object> with a name and no geometry.
const xAnyLabeling = `<?xml version="1.0" ?>
<annotation>
  <folder>/data/out</folder>
  <filename>board_03.jpg</filename>
  <size>
    <width>800</width>
    <height>600</height>
    <depth>3</depth>
  </size>
  <source>
    <database>https://github.com/CVHub520/X-AnyLabeling</database>
  </source>
  <object>
    <name>chip</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <occluded>0</occluded>
    <difficult>0</difficult>
    <bndbox>
      <xmin>8</xmin>
      <ymin>10</ymin>
      <xmax>60</xmax>
      <ymax>70</ymax>
    </bndbox>
    <polygon>
      <x1>10.5</x1>
      <y1>10.0</y1>
      <x2>60.0</x2>
      <y2>12.25</y2>
      <x3>55.0</x3>
      <y3>70.0</y3>
      <x4>8.0</x4>
      <y4>66.0</y4>
    </polygon>
  </object>
  <object>
    <name>resistor</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <occluded>0</occluded>
    <difficult>0</difficult>
    <bndbox>
      <xmin>100</xmin>
      <ymin>120</ymin>
      <xmax>180</xmax>
      <ymax>150</ymax>
    </bndbox>
  </object>
  <object>
    <name>fiducial</name>
    <pose>Unspecified</pose>
    <truncated>0</truncated>
    <occluded>0</occluded>
    <difficult>1</difficult>
  </object>
</annotation>
`;

// CVAT "PASCAL VOC 1.1" (Datumaro): XML declaration, empty <folder> and <depth>, float pixels, <occluded>,
// <attributes>, and a <source> that has its own <annotation> element.
const cvat = `<?xml version="1.0" encoding="utf-8"?>
<annotation>
  <folder></folder>
  <filename>frames/frame_000007.PNG</filename>
  <source>
    <database>Unknown</database>
    <annotation>Unknown</annotation>
    <image>Unknown</image>
  </source>
  <size>
    <width>1920</width>
    <height>1080</height>
    <depth></depth>
  </size>
  <segmented>0</segmented>
  <object>
    <name>car</name>
    <truncated>0</truncated>
    <occluded>0</occluded>
    <difficult>0</difficult>
    <bndbox>
      <xmin>100.46</xmin>
      <ymin>200.0</ymin>
      <xmax>350.93</xmax>
      <ymax>410.5</ymax>
    </bndbox>
    <attributes>
      <attribute>
        <name>color</name>
        <value>red</value>
      </attribute>
    </attributes>
  </object>
</annotation>
`;

describe('Pascal VOC variants', () => {
  it('labelImg: integer boxes, the image by <filename>, truncated kept and flagged', async () => {
    const out = await read('Annotations/cat_001.xml', labelImg);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['cat_001.jpg']);
    expect(out.files.get('Annotations/cat_001.xml')).toBe('voc');
    expect(out.annotations).toHaveLength(2);
    expect(out.annotations[0]).toEqual({ entry: 'Annotations/cat_001.xml', image: 'cat_001.jpg', label: 'cat', geometry: { kind: 'box', x1: 48, y1: 240, x2: 195, y2: 371 } });
    expect(out.annotations[1]).toMatchObject({ label: 'dog', difficult: true });
  });

  it("roLabelImg: robndbox → rotated box in degrees, the same corners as roLabelImg's own rotatePoint", async () => {
    const out = await read('labels/P0001.xml', roLabelImg);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['P0001']);
    expect(out.annotations.map((a) => a.geometry.kind)).toEqual(['rbox', 'rbox', 'box']);
    const g = out.annotations[0]!.geometry as Extract<Geometry, { kind: 'rbox' }>;
    expect(g).toMatchObject({ cx: 320.5, cy: 240.25, w: 100, h: 40 });
    expect(g.angle).toBeCloseTo(30, 4);
    expect(out.annotations[0]!.difficult).toBe(true);
    expect(out.annotations[1]!.difficult).toBeUndefined();
    // roLabelImg draws corner (dx, dy) at rotatePoint(cx, cy, cx + dx, cy + dy, -angle):
    // x = cx + cos(a)·dx − sin(a)·dy, y = cy + sin(a)·dx + cos(a)·dy (clockwise on screen, y down).
    const a = 0.523599;
    const rolabel = [[-50, -20], [50, -20], [50, 20], [-50, 20]].map(([dx, dy]) => [320.5 + Math.cos(a) * dx! - Math.sin(a) * dy!, 240.25 + Math.sin(a) * dx! + Math.cos(a) * dy!]);
    corners(g).forEach((p, i) => {
      expect(p[0]).toBeCloseTo(rolabel[i]![0]!, 2);
      expect(p[1]).toBeCloseTo(rolabel[i]![1]!, 2);
    });
    expect((out.annotations[1]!.geometry as { angle: number }).angle).toBeCloseTo(160, 4);
  });

  it('CVAT/Datumaro: float pixels, empty optional tags, <attributes>, folders in filename dropped', async () => {
    const out = await read('Annotations/frame_000007.xml', cvat);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['frame_000007.PNG']);
    expect(out.annotations.map((a) => a.geometry)).toEqual([{ kind: 'box', x1: 100.46, y1: 200, x2: 350.93, y2: 410.5 }]);
  });

  it('X-AnyLabeling: polygons as x1 y1 x2 y2… children over their bndbox; an object with no geometry is named', async () => {
    const out = await read('xml/board_03.xml', xAnyLabeling);
    expect([...out.images]).toEqual(['board_03.jpg']);
    expect(out.annotations).toHaveLength(2);
    expect(out.annotations[0]).toMatchObject({ label: 'chip', geometry: { kind: 'polygon', points: [[10.5, 10], [60, 12.25], [55, 70], [8, 66]] } });
    expect(out.annotations[1]).toMatchObject({ label: 'resistor', geometry: { kind: 'box', x1: 100, y1: 120, x2: 180, y2: 150 } });
    expect(fields(out)).toEqual(['object[2].bndbox:number']);
  });

  it('Roboflow: numbers with spaces around them, a long generated file name, and a UTF-8 BOM', async () => {
    const xml = `<annotation><folder></folder><filename>IMG_2041_jpg.rf.5e1b2c3d4e5f.jpg</filename><path>IMG_2041_jpg.rf.5e1b2c3d4e5f.jpg</path><source><database>roboflow.com</database></source><size><width>416</width><height>416</height><depth>3</depth></size><segmented>0</segmented><object><name>screw</name><pose>Unspecified</pose><truncated>0</truncated><difficult>0</difficult><occluded>0</occluded><bndbox><xmin> 12 </xmin><ymin>12.0</ymin><xmax>1e2</xmax><ymax>99.5</ymax></bndbox></object></annotation>`;
    const out = await read('train/IMG_2041_jpg.rf.5e1b2c3d4e5f.xml', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)]));
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => a.geometry)).toEqual([{ kind: 'box', x1: 12, y1: 12, x2: 100, y2: 99.5 }]);
    expect([...out.images]).toEqual(['IMG_2041_jpg.rf.5e1b2c3d4e5f.jpg']);
  });

  it("Loupe's own export: <polygon><pt> and OCR <text>; <folder> is the dataset's, the reference is the filename", async () => {
    const xml = `<annotation><folder>JPEGImages</folder><filename>plate.png</filename><object><name>plate</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>9</xmax><ymax>8</ymax></bndbox><polygon><pt><x>1</x><y>2</y></pt><pt><x>9</x><y>2</y></pt><pt><x>5</x><y>8</y></pt></polygon><text>AB 123 &amp; C</text></object></annotation>`;
    const out = await read('Annotations/plate.xml', xml);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['plate.png']);
    expect(out.annotations[0]!.geometry).toEqual({ kind: 'polygon', points: [[1, 2], [9, 2], [5, 8]], text: 'AB 123 & C' });
  });

  it('empty or missing optional tags, no <size>, no <filename>: the XML path without .xml names the image', async () => {
    const xml = `<annotation><folder/><object><name>bolt</name><pose/><truncated/><difficult></difficult><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>3</xmax><ymax>4</ymax></bndbox></object></annotation>`;
    const out = await read('set/Annotations/img7.xml', xml);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['set/Annotations/img7']);
    expect(out.annotations).toHaveLength(1);
    expect(out.annotations[0]!.difficult).toBeUndefined();
    const empty = await read('x/empty.xml', '<annotation><filename></filename></annotation>');
    expect([...empty.images]).toEqual(['x/empty']);
    expect(empty.annotations).toEqual([]);
    const bare = await read('bare.xml', '<annotation/>');
    expect([...bare.images]).toEqual(['bare']);
    expect(bare.problems).toEqual([]);
  });

  it('class names stay text: non-ASCII, "007", "1e3", and escaped characters decoded', async () => {
    const names = ['猫', 'Schraube-ä', '007', '1e3', 'a &amp; b &lt;c&gt; &#233;'];
    const xml = `<annotation><filename>n.jpg</filename>${names.map((n) => `<object><name>${n}</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object>`).join('')}</annotation>`;
    const out = await read('n.xml', xml);
    expect(out.annotations.map((a) => a.label)).toEqual(['猫', 'Schraube-ä', '007', '1e3', 'a & b <c> é']);
  });

  it('point and line objects are skipped as such; an object with no shape is named', async () => {
    const xml = `<annotation><filename>p.jpg</filename>
      <object><name>tip</name><point><x>4</x><y>5</y></point></object>
      <object><name>edge</name><line><x1>1</x1><y1>1</y1><x2>9</x2><y2>9</y2></line></object>
      <object><name>nothing</name><pose>Unspecified</pose></object>
      <object><name>empty polygon</name><polygon/><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object>
      <object><name>ok</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object></annotation>`;
    const out = await read('p.xml', xml);
    expect(out.skips).toEqual([
      { entry: 'p.xml', reason: 'point', count: 1 },
      { entry: 'p.xml', reason: 'line', count: 1 },
    ]);
    expect(fields(out)).toEqual(['object[2].bndbox:number']);
    expect(out.annotations.map((a) => a.label)).toEqual(['empty polygon', 'ok']);
  });
});

describe('malformed VOC files: the place and what was expected, never a throw', () => {
  const one = (object: string) => `<annotation><filename>a.jpg</filename><object>${object}</object><object><name>good</name><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>5</xmax><ymax>5</ymax></bndbox></object></annotation>`;
  const bnd = (a: string, b: string, c: string, d: string) => `<name>x</name><bndbox><xmin>${a}</xmin><ymin>${b}</ymin><xmax>${c}</xmax><ymax>${d}</ymax></bndbox>`;
  const cases: [string, string, string][] = [
    ['a coordinate that is text', bnd('1', 'abc', '30', '40'), 'object[0].bndbox:number'],
    ['NaN', bnd('NaN', '2', '30', '40'), 'object[0].bndbox:number'],
    ['1e300', bnd('1', '2', '1e300', '40'), 'object[0].bndbox:number'],
    ['Infinity', bnd('1', '2', 'Infinity', '40'), 'object[0].bndbox:number'],
    ['a hexadecimal number', bnd('0x10', '2', '30', '40'), 'object[0].bndbox:number'],
    ['too few values (no ymax)', '<name>x</name><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>30</xmax></bndbox>', 'object[0].bndbox:number'],
    ['a negative size', bnd('30', '2', '1', '40'), 'object[0].bndbox:positiveSize'],
    ['no name', bnd('1', '2', '30', '40').replace('<name>x</name>', '<name></name>'), 'object[0].name:text'],
    ['a name that is an element', bnd('1', '2', '30', '40').replace('<name>x</name>', '<name><b>x</b></name>'), 'object[0].name:text'],
    ['a robndbox angle that is NaN', '<name>x</name><robndbox><cx>5</cx><cy>5</cy><w>4</w><h>2</h><angle>NaN</angle></robndbox>', 'object[0].robndbox:number'],
    ['a robndbox without h', '<name>x</name><robndbox><cx>5</cx><cy>5</cy><w>4</w><angle>0</angle></robndbox>', 'object[0].robndbox:number'],
    ['a robndbox of zero width', '<name>x</name><robndbox><cx>5</cx><cy>5</cy><w>0</w><h>2</h><angle>0</angle></robndbox>', 'object[0].robndbox:positiveSize'],
    ['a polygon of two points', '<name>x</name><polygon><pt><x>1</x><y>1</y></pt><pt><x>2</x><y>2</y></pt></polygon>', 'object[0].polygon:points'],
    ['a polygon with a y missing', '<name>x</name><polygon><x1>1</x1><y1>1</y1><x2>5</x2><y2>1</y2><x3>3</x3></polygon>', 'object[0].polygon:points'],
    ['an empty object', '', 'object[0]:object'],
  ];
  it.each(cases)('%s', async (_, object, expected) => {
    const out = await read('a.xml', one(object));
    expect(fields(out)).toEqual([expected]);
    expect(out.problems[0]).toMatchObject({ entry: 'a.xml', key: 'annotationBadField', vars: { entry: 'a.xml' } });
    expect(out.annotations.map((a) => a.label)).toEqual(['good']);
  });

  it('a file that is not an annotation, a filename that is an element, too many polygon points', async () => {
    expect(fields(await read('b.xml', '<root><x>1</x></root>'))).toEqual(['annotation:object']);
    expect(fields(await read('c.xml', '<annotation><filename><x>1</x></filename></annotation>'))).toEqual(['annotation.filename:text']);
    const pts = Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => `<pt><x>${i % 50}</x><y>${i % 7}</y></pt>`).join('');
    const out = await read('d.xml', `<annotation><filename>d.jpg</filename><object><name>x</name><polygon>${pts}</polygon></object></annotation>`);
    expect(out.problems).toEqual([{ entry: 'd.xml', key: 'annotationTooManyPoints', vars: { entry: 'd.xml', max: LabelingLimits.polygonPointsMax } }]);
  });
});

describe('VOC round trip: vocWriter → XML worker → parseVoc', () => {
  const rbox = (angle: number): Geometry => ({ kind: 'rbox', cx: 200.5, cy: 150.25, w: 120, h: 40.5, angle });
  const shapes: { label: string; geometry: Geometry }[] = [
    { label: 'box', geometry: { kind: 'box', x1: 10.25, y1: 20.5, x2: 110, y2: 90.125 } },
    ...[0, 30, 95, -45].map((a) => ({ label: `rbox ${a}`, geometry: rbox(a) })),
    { label: 'poly', geometry: { kind: 'polygon', points: [[5, 5], [60.5, 8], [70, 66.25], [12, 50]] } },
    { label: 'ocr', geometry: { kind: 'box', x1: 1, y1: 2, x2: 30, y2: 12, text: 'LOT 42 <A&B>' } },
    { label: 'Schraube ä', geometry: { kind: 'polygon', points: [[1, 1], [9, 1], [5, 9]], text: 'x' } },
  ];
  it('gives back every shape: kind, label, geometry within 0.01 px, OCR text', async () => {
    const img: ExportImage = { file: 'part.jpg', width: 400, height: 300, annotations: shapes.map((s, i) => ({ ...s, labelIndex: i })) };
    const [file] = vocWriter.files([img], shapes.map((s) => s.label));
    expect(file!.path).toBe('Annotations/part.xml');
    const out = await read(file!.path, file!.data);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['part.jpg']);
    expect(out.annotations).toHaveLength(shapes.length);
    for (const [i, s] of shapes.entries()) {
      const got = out.annotations[i]!;
      expect(got.label).toBe(s.label);
      expect(got.geometry.kind).toBe(s.geometry.kind);
      expect(got.geometry.text).toBe(s.geometry.text);
      const want = pointsOf(s.geometry);
      const have = pointsOf(got.geometry);
      expect(have).toHaveLength(want.length);
      have.forEach((p, k) => {
        expect(Math.abs(p[0] - want[k]![0])).toBeLessThan(0.01);
        expect(Math.abs(p[1] - want[k]![1])).toBeLessThan(0.01);
      });
    }
    // Plain VOC readers still find a bndbox around the rotated box: its bounds.
    const xml = file!.data.toString();
    expect(xml).toContain('<type>robndbox</type>');
    expect(xml.match(/<bndbox>/g)).toHaveLength(shapes.length);
  });
});
