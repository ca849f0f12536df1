import { describe, expect, it } from 'vitest';
import { classFromPath, isClassList, parseClassList, splitFromPath } from '../src/services/formats/classes.js';
import { emptyParsed, type Parsed } from '../src/services/formats/types.js';

/**
 * Classification lists as tools write them (a spreadsheet's CSV with a header, Roboflow's one-hot
 * `_classes.csv`, Label Studio's CSV and JSON-MIN exports, plain JSON maps) and the folder-per-class layouts
 * (issue 33), read by the parser alone.
 */
async function parse(entry: string, text: string): Promise<Parsed> {
  expect(isClassList(entry, text), `${entry} is a class list`).toBe(true);
  const out = emptyParsed();
  await parseClassList(entry, text, out);
  expect(out.files.get(entry)).toBe('list');
  return out;
}
const pairs = (out: Parsed) => out.classes.map((c) => `${c.image}=${c.label}`);
const fields = (out: Parsed) => out.problems.map((p) => `${p.vars?.field} ${p.vars?.expected ?? ''}`.trim());

describe('CSV class lists', () => {
  it.each([
    ['comma, filename/label, LF', 'labels.csv', 'filename,label\na.jpg,cat\nb.jpg,dog\n'],
    ['semicolon, File;Class, CRLF', 'labels.csv', 'File;Class\r\na.jpg;cat\r\nb.jpg;dog\r\n'],
    ['tab, image/category, no final newline', 'labels.tsv', 'image\tcategory\na.jpg\tcat\nb.jpg\tdog'],
    ['quoted fields and extra columns', 'labels.csv', 'id,"Image","Label",score\n1,"a.jpg","cat",0.9\n2,"b.jpg",dog,0.8\n'],
    ['a UTF-8 BOM and upper case', 'labels.csv', '\uFEFFFILENAME,CLASS\na.jpg,cat\nb.jpg,dog\n'],
    ['no header at all', 'labels.csv', 'a.jpg,cat\nb.jpg,dog\n'],
  ])('%s', async (_name, entry, text) => {
    const out = await parse(entry, text);
    expect(pairs(out)).toEqual(['a.jpg=cat', 'b.jpg=dog']);
    expect([...out.images]).toEqual(['a.jpg', 'b.jpg']);
    expect(out.problems).toEqual([]);
  });

  it('keeps separators, quotes and line breaks inside quoted fields, and non-ASCII classes', async () => {
    const out = await parse('x.csv', 'file_name,class_name\r\n"a, b.jpg","Katze ""rot"""\r\n"c.jpg","line\r\nbreak"\r\nd.jpg,猫\r\n\r\n');
    expect(out.classes.map((c) => [c.image, c.label])).toEqual([
      ['a, b.jpg', 'Katze "rot"'],
      ['c.jpg', 'line\r\nbreak'],
      ['d.jpg', '猫'],
    ]);
  });

  it("reads Roboflow's one-hot _classes.csv beside each split's images: several 1s give several classes, all 0s none", async () => {
    const text = 'filename, cat, dog, bird\nimg1_jpg.rf.0a1b.jpg,1,0,0\nimg2_jpg.rf.2c3d.jpg,0,1,1\nimg3_jpg.rf.4e5f.jpg,0,0,0\n';
    const out = await parse('train/_classes.csv', text);
    expect(pairs(out)).toEqual(['train/img1_jpg.rf.0a1b.jpg=cat', 'train/img2_jpg.rf.2c3d.jpg=dog', 'train/img2_jpg.rf.2c3d.jpg=bird']);
    // the all-zero image is listed, with no class: the importer adds it unclassified
    expect([...out.images]).toEqual(['train/img1_jpg.rf.0a1b.jpg', 'train/img2_jpg.rf.2c3d.jpg', 'train/img3_jpg.rf.4e5f.jpg']);
    expect(splitFromPath('train/img1_jpg.rf.0a1b.jpg')).toBe('train');
  });

  it("reads Label Studio's CSV export: the image as an upload path, one choice or several", async () => {
    const text = 'image,id,choice,annotator,annotation_id\n/data/upload/1/cat1.jpg,1,Cat,a@b.c,11\n"/data/upload/1/both.jpg",2,"{""choices"": [""Cat"", ""Dog""]}",a@b.c,12\nhttp://host:8080/data/local-files/?d=x/dog2.png,3,Dog,a@b.c,13\n';
    const out = await parse('project-1.csv', text);
    expect(pairs(out)).toEqual(['cat1.jpg=Cat', 'both.jpg=Cat', 'both.jpg=Dog', 'dog2.png=Dog']);
  });

  it('names the row and column of an empty file name; an empty class leaves the image unclassified', async () => {
    const out = await parse('l.csv', 'filename,label\n,cat\nb.jpg,\nc.jpg,dog\n');
    expect(fields(out)).toEqual(['line 2, "filename" text']);
    expect(pairs(out)).toEqual(['c.jpg=dog']);
    expect([...out.images]).toEqual(['b.jpg', 'c.jpg']);
  });

  it('does not take other CSV or text files for class lists', () => {
    expect(isClassList('a.csv', 'x,y,w,h\n1,2,3,4\n')).toBe(false);
    expect(isClassList('a.csv', 'filename,width,height\na.jpg,10,20\n')).toBe(false);
    expect(isClassList('a.csv', 'filename,cat\na.jpg,2\n')).toBe(false);
    expect(isClassList('train.txt', 'images/a.jpg\nimages/b.jpg\n')).toBe(false);
    expect(isClassList('classes.txt', 'cat\ndog\n')).toBe(false);
    expect(isClassList('a.csv', '')).toBe(false);
  });
});

describe('JSON class lists', () => {
  it('reads a map of file → class (a list of classes, or null for none)', async () => {
    const out = await parse('meta/labels.json', JSON.stringify({ 'a.jpg': 'cat', 'b.png': ['cat', 'dog'], 'c.jpg': null, 'd.jpg': 7 }));
    expect(pairs(out)).toEqual(['meta/a.jpg=cat', 'meta/b.png=cat', 'meta/b.png=dog', 'meta/d.jpg=7']);
    expect(out.images.size).toBe(4);
  });

  it.each([
    ['file/label', [{ file: 'a.jpg', label: 'cat' }, { file: 'b.jpg', label: 'dog' }]],
    ['filename/class', [{ filename: 'a.jpg', class: 'cat' }, { filename: 'b.jpg', class: 'dog' }]],
    ['Image/Category', [{ Image: 'a.jpg', Category: 'cat' }, { Image: 'b.jpg', Category: 'dog' }]],
    ['Label Studio JSON-MIN', [{ image: '/data/upload/3/a.jpg', id: 1, choice: 'cat', annotator: 1 }, { image: '/data/upload/3/b.jpg', id: 2, choice: 'dog', annotator: 1 }]],
    ['{"images": [...]}', { images: [{ file_name: 'a.jpg', label: 'cat' }, { file_name: 'b.jpg', label: 'dog' }] }],
  ])('reads a list of %s', async (_name, doc) => {
    const out = await parse('l.json', JSON.stringify(doc));
    expect(pairs(out)).toEqual(['a.jpg=cat', 'b.jpg=dog']);
    // the parse worker's document gives the same
    const again = emptyParsed();
    await parseClassList('l.json', '', again, doc);
    expect(pairs(again)).toEqual(pairs(out));
  });

  it('does not take COCO, LabelMe, ambiguous image lists or other JSON for class lists', () => {
    expect(isClassList('a.json', JSON.stringify({ images: [{ file_name: 'a.jpg', label: 'x' }], annotations: [], categories: [] }))).toBe(false);
    expect(isClassList('a.json', JSON.stringify({ images: [{ file_name: 'a.jpg', id: 1 }] }))).toBe(false);
    expect(isClassList('a.json', JSON.stringify({ version: '5.4.1', shapes: [], imagePath: 'a.jpg', imageData: null }))).toBe(false);
    expect(isClassList('a.json', JSON.stringify({ 'a.jpg': { label: 'x' } }))).toBe(false);
    expect(isClassList('a.json', JSON.stringify(['a.jpg', 'b.jpg']))).toBe(false);
    expect(isClassList('a.json', '{not json')).toBe(false);
  });

  it('names the place of a bad item, and reads the rest', async () => {
    const doc = [{ file: 'a.jpg', label: 'cat' }, { file: 'b.jpg', label: { x: 1 } }, { file: null, label: 'dog' }, { file: 'd.jpg', label: [1, 2] }, { file: 'e.jpg', label: 1e300 }];
    const out = await parse('l.json', JSON.stringify(doc));
    expect(fields(out)).toEqual(['[1].label text', '[2].file text', '[3].label text']);
    expect(pairs(out)).toEqual(['a.jpg=cat', 'e.jpg=1e+300']);
  });
});

describe('classFromPath', () => {
  it.each([
    ['cat/a.jpg', { label: 'cat' }],
    ['Katze mit Hut/a.PNG', { label: 'Katze mit Hut' }],
    ['train/cat/a.jpg', { label: 'cat', split: 'train' }],
    ['Valid/dog/b.webp', { label: 'dog', split: 'valid' }],
    ['val/dog/b.jpg', { label: 'dog', split: 'valid' }],
    ['validation/dog/b.jpg', { label: 'dog', split: 'valid' }],
    ['TEST/bird/c.bmp', { label: 'bird', split: 'test' }],
    ['dataset/cat/a.jpg', { label: 'cat' }],
    ['dataset/train/cat/x.jpg', { label: 'cat', split: 'train' }],
    ['flowers\\val\\rose\\x.jpg', { label: 'rose', split: 'valid' }],
    ['_unlabeled/a.jpg', { label: '' }],
    ['_none/a.jpg', { label: '', negative: true }],
    ['a.jpg', null],
    ['train/a.jpg', null],
    ['train/test/a.jpg', null],
    ['a/b/c/d.jpg', null],
    ['dataset/train/cat/more/x.jpg', null],
    ['cat/readme.txt', null],
    ['__MACOSX/cat/._a.jpg', null],
    ['cat/.hidden.jpg', null],
  ])('%s → %j', (file, want) => expect(classFromPath(file)).toEqual(want));
});
