import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, LabelingLimits, type AnnotationImportData, type ModelData, type UploadData } from '@loupe/contracts';
import { startApp, type TestApp } from './helper.js';
import { draw, newModel, send, uploadUrl, userToken, zip, zipUrl, type ZipEntry } from './gallery-fixtures.js';

/**
 * Malformed annotation files (issue 30, item 6): each is refused with a 4xx whose message names the file and
 * what is wrong in it, never an HTTP 500. A LabelMe `points` that is a string and a VOC file nested 200,000
 * levels deep answered 500 before.
 */
let t: TestApp;
let token: string;
let m: ModelData;

beforeAll(async () => {
  t = await startApp();
  token = await userToken(t.app);
  m = await newModel(t.app, token, 'SEGMENTATION');
  const r = await send<UploadData>(t.app, token, uploadUrl(m.id), [{ filename: 'a.jpg', data: await draw('jpeg', 200, 100, 5) }]);
  expect(r.data.accepted).toBe(1);
});
afterAll(() => t.close());

const importZip = async (entries: ZipEntry[], lang?: string) =>
  send<AnnotationImportData>(t.app, token, zipUrl(m.id), [{ field: 'file', filename: 'ann.zip', data: await zip(entries) }], lang ? { lang } : {});

const labelme = (shapes: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ version: '5.4.1', imagePath: 'a.jpg', imageWidth: 200, imageHeight: 100, shapes, ...extra });
const coco = (annotations: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ images: [{ id: 1, file_name: 'a.jpg' }], categories: [{ id: 1, name: 'x' }], annotations, ...extra });
const voc = (objects: string) => `<annotation><filename>a.jpg</filename>${objects}</annotation>`;
const box = (xmin: string, ymin: string, xmax: string, ymax: string, name = '<name>x</name>') =>
  `<object>${name}<bndbox><xmin>${xmin}</xmin><ymin>${ymin}</ymin><xmax>${xmax}</xmax><ymax>${ymax}</ymax></bndbox></object>`;
const classes = { path: 'classes.txt', data: 'x\ny' };

/** The message as it starts; issue 33 adds what was expected ("… Expected: a number."). */
const startsAs = (message: string | undefined, start: string) => expect(message).toMatch(new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\S.*)?$`));
const field = (entry: string, f: string) => `The annotation file "${entry}" cannot be read: "${f}" is missing, of the wrong type or not a usable number.`;

interface Case {
  name: string;
  entries: ZipEntry[];
  code: number;
  message: string;
}

const cases: Case[] = [
  { name: 'LabelMe points as a string', entries: [{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'polygon', points: '1,2,3' }]) }], code: Errors.annotationBadField.code, message: field('a.json', 'shapes[0].points') },
  { name: 'LabelMe shapes as null', entries: [{ path: 'a.json', data: labelme(null) }], code: Errors.annotationBadField.code, message: field('a.json', 'shapes') },
  { name: 'LabelMe a shape as null', entries: [{ path: 'a.json', data: labelme([null]) }], code: Errors.annotationBadField.code, message: field('a.json', 'shapes[0]') },
  {
    name: 'LabelMe a coordinate as a string',
    entries: [{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'rectangle', points: [[1, 2], ['30', 40]] }]) }],
    code: Errors.annotationBadField.code,
    message: field('a.json', 'shapes[0].points[1]'),
  },
  {
    name: 'LabelMe a huge coordinate',
    entries: [{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'rectangle', points: [[1, 2], [1e300, 40]] }]) }],
    code: Errors.annotationBadField.code,
    message: field('a.json', 'shapes[0].points[1]'),
  },
  {
    name: 'LabelMe a label that is not text',
    entries: [{ path: 'a.json', data: labelme([{ label: { x: 1 }, shape_type: 'rectangle', points: [[1, 2], [30, 40]] }]) }],
    code: Errors.annotationBadField.code,
    message: field('a.json', 'shapes[0].label'),
  },
  {
    name: 'LabelMe a polygon over the vertex limit',
    entries: [{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'polygon', points: Array.from({ length: LabelingLimits.polygonPointsMax + 1 }, (_, i) => [i % 200, i % 100]) }]) }],
    code: Errors.annotationTooManyPoints.code,
    message: `The annotation file "a.json" has a shape with more than ${LabelingLimits.polygonPointsMax} points.`,
  },
  {
    name: 'VOC nested 200,000 levels deep',
    entries: [{ path: 'a.xml', data: `<annotation>${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</annotation>` }],
    code: Errors.annotationTooDeep.code,
    message: 'The annotation file "a.xml" is nested more than 32 levels deep.',
  },
  {
    name: 'JSON nested 200,000 levels deep',
    entries: [{ path: 'deep.json', data: `{"shapes":${'['.repeat(200_000)}${']'.repeat(200_000)},"imagePath":"a.jpg"}` }],
    code: Errors.annotationTooDeep.code,
    message: 'The annotation file "deep.json" is nested more than 32 levels deep.',
  },
  { name: 'JSON that is not JSON', entries: [{ path: 'x.json', data: '{"shapes": [' }], code: Errors.annotationInvalid.code, message: 'The annotation file "x.json" cannot be read.' },
  { name: 'VOC a coordinate that is not a number', entries: [{ path: 'a.xml', data: voc(box('1', 'abc', '30', '40')) }], code: Errors.annotationBadField.code, message: field('a.xml', 'object[0].bndbox') },
  { name: 'VOC an empty coordinate', entries: [{ path: 'a.xml', data: voc(box('1', '', '30', '40')) }], code: Errors.annotationBadField.code, message: field('a.xml', 'object[0].bndbox') },
  { name: 'VOC a negative size', entries: [{ path: 'a.xml', data: voc(box('30', '2', '1', '40')) }], code: Errors.annotationBadField.code, message: field('a.xml', 'object[0].bndbox') },
  { name: 'VOC an object without a name', entries: [{ path: 'a.xml', data: voc(box('1', '2', '30', '40', '')) }], code: Errors.annotationBadField.code, message: field('a.xml', 'object[0].name') },
  { name: 'VOC a filename that is an element', entries: [{ path: 'a.xml', data: '<annotation><filename><x>1</x></filename></annotation>' }], code: Errors.annotationBadField.code, message: field('a.xml', 'annotation.filename') },
  { name: 'COCO an annotation as null', entries: [{ path: 'c.json', data: coco([null]) }], code: Errors.annotationBadField.code, message: field('c.json', 'annotations[0]') },
  { name: 'COCO an image as null', entries: [{ path: 'c.json', data: coco([], { images: [null] }) }], code: Errors.annotationBadField.code, message: field('c.json', 'images[0]') },
  { name: 'COCO bbox of strings', entries: [{ path: 'c.json', data: coco([{ image_id: 1, category_id: 1, bbox: ['1', '2', '3', '4'] }]) }], code: Errors.annotationBadField.code, message: field('c.json', 'annotations[0].bbox') },
  { name: 'COCO a negative width', entries: [{ path: 'c.json', data: coco([{ image_id: 1, category_id: 1, bbox: [50, 2, -30, 4] }]) }], code: Errors.annotationBadField.code, message: field('c.json', 'annotations[0].bbox') },
  { name: 'COCO an unknown category', entries: [{ path: 'c.json', data: coco([{ image_id: 1, category_id: 9, bbox: [1, 2, 3, 4] }]) }], code: Errors.annotationBadField.code, message: field('c.json', 'annotations[0].category_id') },
  {
    name: 'COCO a polygon with a null vertex',
    entries: [{ path: 'c.json', data: coco([{ image_id: 1, category_id: 1, segmentation: [[1, 2, 30, 2, null, 40]] }]) }],
    code: Errors.annotationBadField.code,
    message: field('c.json', 'annotations[0].segmentation'),
  },
  { name: 'YOLO a value that is not a number', entries: [classes, { path: 'a.txt', data: '0 0.5 abc 0.1 0.1' }], code: Errors.annotationBadField.code, message: field('a.txt', 'line 1') },
  { name: 'YOLO a negative size', entries: [classes, { path: 'a.txt', data: '\n0 0.5 0.5 -0.1 0.1' }], code: Errors.annotationBadField.code, message: field('a.txt', 'line 2') },
  { name: 'YOLO a class that is not an index', entries: [classes, { path: 'a.txt', data: '0.5 0.5 0.5 0.1 0.1' }], code: Errors.annotationBadField.code, message: field('a.txt', 'line 1') },
];

describe('malformed annotation files are refused by name, never with a 500', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const r = await importZip(c.entries);
    expect(r.status, r.message).toBe(400);
    expect(r.code).toBe(Errors.noValidAnnotations.code);
    const problem = (r.data as unknown as { results: AnnotationImportData['results'] }).results.find((x) => x.code === c.code);
    startsAs(problem?.message, c.message);
  });

  it('names the file in the user language', async () => {
    const r = await importZip([{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'polygon', points: 'oops' }]) }], 'de');
    const results = (r.data as unknown as { results: AnnotationImportData['results'] }).results;
    expect(results[0]!.message).toBe('Die Annotationsdatei „a.json“ ist nicht lesbar: „shapes[0].points“ fehlt, hat den falschen Typ oder ist keine brauchbare Zahl. Erwartet: eine Liste von [x, y]-Zahlenpaaren.');
  });

  it('keeps the good shapes of a file beside the bad ones', async () => {
    const r = await importZip([{ path: 'a.json', data: labelme([{ label: 'x', shape_type: 'rectangle', points: [[1, 2], [30, 40]] }, { label: 'x', points: 'bad' }]) }]);
    expect(r.code, r.message).toBe(0);
    expect(r.data).toMatchObject({ annotations: 1 });
    expect(r.data.results).toHaveLength(1);
    startsAs(r.data.results[0]!.message, field('a.json', 'shapes[1].points'));
    expect(r.data.report[0]).toMatchObject({ file: 'a.json', taken: 1, skipped: [{ reason: 'badField', count: 1 }] });
  });

  it('refuses more shapes on one image than the studio allows, leaving its annotations as they were', async () => {
    const before = await importZip([{ path: 'a.json', data: labelme([{ label: 'keep', shape_type: 'rectangle', points: [[1, 2], [30, 40]] }]) }]);
    expect(before.code).toBe(0);
    // Distinct shapes: the same shape twice on one image is stored once (issue 33).
    const many = Array.from({ length: LabelingLimits.shapesPerImageMax + 1 }, (_, i) => ({ label: 'x', shape_type: 'rectangle', points: [[1 + i / 1000, 2], [30, 40]] }));
    const r = await importZip([{ path: 'a.json', data: labelme(many) }]);
    expect(r.status).toBe(400);
    const results = (r.data as unknown as { results: AnnotationImportData['results'] }).results;
    expect(results.map((x) => x.message)).toEqual([`The image "a.jpg" has more than ${LabelingLimits.shapesPerImageMax} shapes in the annotation files.`]);
    const list = await t.app.inject({ url: `/api/models/${m.id}/images`, headers: { 'x-token': token } });
    const id = (list.json() as { data: { items: { id: number }[] } }).data.items[0]!.id;
    const ann = await t.app.inject({ url: `/api/models/${m.id}/images/${id}/annotations`, headers: { 'x-token': token } });
    expect((ann.json() as { data: { annotations: unknown[] } }).data.annotations).toHaveLength(1);
  });

  it('refuses an annotation file over the size limit by name', async () => {
    const big = JSON.stringify({ shapes: [], imagePath: 'a.jpg', pad: ' '.repeat(65 * 1024 * 1024) });
    const r = await importZip([{ path: 'dir/big.json', data: big }]);
    expect(r).toMatchObject({ status: 413, code: Errors.annotationFileTooLarge.code, message: 'The annotation file "dir/big.json" is too large: at most 64 MB.' });
  });
});
