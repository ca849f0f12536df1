import { describe, expect, it } from 'vitest';
import { LabelingLimits, type Geometry } from '@loupe/contracts';
import { findClassList, isYoloLabelFile, parseYolo, yoloWriter } from '../src/services/formats/yolo.js';
import { emptyParsed, toExportable, type ExportImage, type Parsed } from '../src/services/formats/types.js';

/**
 * YOLO as each tool writes it (issue 33): Ultralytics detection, segmentation and OBB labels with their dataset
 * YAML, Roboflow's YOLOv8 and Darknet exports, CVAT's YOLO 1.1 (obj.names, train.txt), labelImg (classes.txt).
 */
type File = { path: string; data: Buffer };
const f = (path: string, text: string): File => ({ path, data: Buffer.from(text) });

async function read(entry: string, text: string, names: string[] | null): Promise<Parsed> {
  const out = emptyParsed();
  await parseYolo(entry, text, names, out);
  return out;
}
const fields = (out: Parsed) => out.problems.map((p) => `${String(p.vars?.field)}:${String(p.vars?.expected)}`);

// Ultralytics' dataset YAML (coco8.yaml style): header comments, path/train/val/test keys, an empty value,
// names as an index map.
const ultralyticsYaml = `# Ultralytics YOLO, AGPL-3.0 license
# Example usage: yolo train data=parts.yaml
path: ../datasets/parts # dataset root dir
train: images/train # train images (relative to 'path')
val: images/val # val images (relative to 'path')
test: # test images (optional)

# Classes
names:
  0: person
  1: bicycle
  2: 'traffic light'
  3: "stop sign" # quoted
`;

// Roboflow's YOLOv8 export: relative split paths, nc, a flow list, and its own roboflow: block.
const roboflowYaml = `train: ../train/images
val: ../valid/images
test: ../test/images

nc: 3
names: ['helmet', 'head', 'person']

roboflow:
  workspace: acme
  project: hard-hats
  version: 2
  license: CC BY 4.0
  url: https://universe.roboflow.com/acme/hard-hats/dataset/2
`;

describe('findClassList: every kind of class list', () => {
  it('Ultralytics data.yaml: an index map, quoted or not, with comments and other keys', () => {
    expect(findClassList([f('parts.yaml', ultralyticsYaml), f('labels/train/a.txt', '0 0.5 0.5 0.1 0.1\n')])).toEqual({ entry: 'parts.yaml', names: ['person', 'bicycle', 'traffic light', 'stop sign'] });
  });

  it("Roboflow's YOLOv8 data.yaml: a flow list; its READMEs are neither class lists nor labels", () => {
    const files = [
      f('data.yaml', roboflowYaml),
      f('README.roboflow.txt', '\nHard Hats - v2 2024-05-01\n==============================\n\nThis dataset was exported via roboflow.com on May 1, 2024\n'),
      f('README.dataset.txt', '# Hard Hats > 2024\nhttps://universe.roboflow.com/acme/hard-hats\n\nProvided by a Roboflow user\nLicense: CC BY 4.0\n'),
      f('train/labels/img_jpg.rf.ab12.txt', '2 0.5 0.5 0.25 0.4\n'),
    ];
    expect(findClassList(files)).toEqual({ entry: 'data.yaml', names: ['helmet', 'head', 'person'] });
    expect(files.filter((x) => isYoloLabelFile(x.path, x.data.toString())).map((x) => x.path)).toEqual(['train/labels/img_jpg.rf.ab12.txt']);
  });

  it('a block list YAML (X-AnyLabeling, Ultralytics pose with kpt_shape), any file name', () => {
    const yaml = `path: /data/poses\ntrain: images/train\nval: images/val\nkpt_shape: [17, 3]\nflip_idx: [0, 2, 1]\nnames:\n  - person # the only class\n  - "dog"\n`;
    expect(findClassList([f('configs/my-set.yml', yaml)])).toEqual({ entry: 'configs/my-set.yml', names: ['person', 'dog'], kpt: [17, 3] });
  });

  it('a YAML without names, an invalid YAML and names that are not a list are not class lists', () => {
    expect(findClassList([f('a.yaml', 'path: x\nnc: 2\n'), f('b.yaml', 'names: [a, b\n'), f('c.yaml', 'names: person\n'), f('d.yaml', '- names\n'), f('e.yaml', `names: [a]\n# ${'x'.repeat(1_000_001)}\n`)])).toBeNull();
    expect(findClassList([f('g.yaml', '{"path": ".", "names": ["json", "style"]}\n')])?.names).toEqual(['json', 'style']);
  });

  it('labelImg classes.txt (CRLF, trailing blank line) and CVAT obj.names; train.txt is a list file, not labels', () => {
    expect(findClassList([f('classes.txt', 'cat\r\ndog\r\n\r\n')])).toEqual({ entry: 'classes.txt', names: ['cat', 'dog'] });
    const cvat = [
      f('obj.names', 'car\nroad sign\n'),
      f('obj.data', 'classes = 2\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n'),
      f('train.txt', 'data/obj_train_data/frame_000000.jpg\ndata/obj_train_data/frame_000001.jpg\n'),
      f('obj_train_data/frame_000000.txt', '1 0.25 0.5 0.1 0.2\n'),
      f('obj_train_data/frame_000001.txt', ''),
    ];
    expect(findClassList(cvat)).toEqual({ entry: 'obj.names', names: ['car', 'road sign'] });
    expect(cvat.filter((x) => isYoloLabelFile(x.path, x.data.toString())).map((x) => x.path)).toEqual(['obj_train_data/frame_000000.txt', 'obj_train_data/frame_000001.txt']);
  });

  it("Roboflow Darknet _darknet.labels and labels.txt when they hold names; a labels.txt of label lines is labels", () => {
    expect(findClassList([f('train/_darknet.labels', 'helmet\nhead\n'), f('train/a.txt', '0 0.5 0.5 0.1 0.1')])).toEqual({ entry: 'train/_darknet.labels', names: ['helmet', 'head'] });
    expect(findClassList([f('labels.txt', 'screw\nnut\n')])).toEqual({ entry: 'labels.txt', names: ['screw', 'nut'] });
    const numeric = f('labels.txt', '0 0.5 0.5 0.1 0.1\n');
    expect(findClassList([numeric])).toBeNull();
    expect(isYoloLabelFile(numeric.path, numeric.data.toString())).toBe(true);
  });

  it('the list nearest the label files wins; at the same distance data.yaml, then classes.txt', () => {
    const files = [
      f('data.yaml', 'names: [a, b]\n'),
      f('export/train/labels/x.txt', '0 0.5 0.5 0.1 0.1\n'),
      f('export/train/labels/classes.txt', 'near1\nnear2\n'),
      f('other/classes.txt', 'far\n'),
    ];
    expect(findClassList(files)?.entry).toBe('export/train/labels/classes.txt');
    expect(findClassList([f('labels/classes.txt', 'c\n'), f('labels/data.yaml', 'names: [y]\n'), f('labels/a.txt', '0 0.5 0.5 0.1 0.1')])).toEqual({ entry: 'labels/data.yaml', names: ['y'] });
    expect(findClassList([f('x.names', 'n\n'), f('classes.txt', 'c\n')])?.entry).toBe('classes.txt');
  });
});

describe('isYoloLabelFile', () => {
  it.each([
    ['labels/a.txt', '0 0.5 0.5 0.1 0.1\n', true],
    ['labels/empty.txt', '', true],
    ['labels/bad-line.txt', '0 0.5 0.5 0.1 0.1\n0 0.5 abc 0.1 0.1\n', true],
    ['labels/only-bad.txt', '0 0.5 abc 0.1 0.1\n', true],
    ['notes.txt', 'Steps\n1. Open the export page\n2 boxes were drawn by hand today\n', false],
    ['train.txt', 'images/train/a.jpg\nimages/train/b.jpg\n', false],
    ['val.txt', './images/val/c.png\r\n', false],
    ['test.txt', '', false],
    ['classes.txt', '0\n1\n', false],
    ['names.txt', 'screw\nnut\n', false],
    ['dota/P0001.txt', 'imagesource:GoogleEarth\ngsd:0.146\n10 10 50 10 50 40 10 40 plane 0\n', false],
    ['a.json', '0 0.5 0.5 0.1 0.1', false],
  ])('%s (%#)', (path, text, want) => expect(isYoloLabelFile(path, text)).toBe(want));
});

describe('YOLO label lines', () => {
  const names = ['person', 'bicycle', 'car'];

  it('Ultralytics detection: image = labels/ → images/ without .txt, boxes in fractions', async () => {
    const out = await read('datasets/parts/labels/train/000000000009.txt', '0 0.479492 0.688771 0.955609 0.5955\n2 0.736516 0.247188 0.498875 0.476417\n', names);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['datasets/parts/images/train/000000000009']);
    expect(out.files.get('datasets/parts/labels/train/000000000009.txt')).toBe('yolo');
    expect(out.annotations).toHaveLength(2);
    expect(out.annotations[0]).toMatchObject({ image: 'datasets/parts/images/train/000000000009', label: 'person', normalized: true });
    const b = out.annotations[1]!.geometry as Extract<Geometry, { kind: 'box' }>;
    expect(b.x1).toBeCloseTo(0.736516 - 0.498875 / 2, 9);
    expect(b.y2).toBeCloseTo(0.247188 + 0.476417 / 2, 9);
    expect(out.annotations[1]!.quad).toBeUndefined();
  });

  it('Ultralytics segmentation: ≥ 6 even values → polygon; 8 values → OBB quad', async () => {
    const seg = '1 0.617 0.736 0.6 0.675 0.575 0.681 0.573 0.737 0.59 0.781\n0 0.1 0.1 0.2 0.1 0.15 0.2\n';
    const out = await read('labels/val/a.txt', seg, names);
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => [a.label, a.geometry.kind, (a.geometry as { points: unknown[] }).points.length, a.quad])).toEqual([
      ['bicycle', 'polygon', 5, undefined],
      ['person', 'polygon', 3, undefined],
    ]);
    const obb = await read('labels/train/P1053__1024__0___90.txt', '0 0.780811 0.743961 0.782371 0.74686 0.777691 0.752174 0.776131 0.749758\n', ['plane']);
    expect(obb.annotations[0]).toMatchObject({ quad: true, normalized: true, geometry: { kind: 'polygon', points: [[0.780811, 0.743961], [0.782371, 0.74686], [0.777691, 0.752174], [0.776131, 0.749758]] } });
  });

  it('CRLF, trailing spaces, tabs, blank lines, a BOM; a prediction line with a confidence; values a hair outside 0–1', async () => {
    const text = '\uFEFF0 0.5 0.5 0.2 0.2  \r\n\r\n1\t0.3\t0.3\t0.1\t0.1\r\n2 0.5 0.5 0.2 0.2 0.87341\r\n0 -0.001 0.5 1.0004 0.3\r\n';
    const out = await read('a.txt', text, names);
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => a.label)).toEqual(['person', 'bicycle', 'car', 'person']);
    expect(out.annotations[2]!.geometry).toEqual({ kind: 'box', x1: 0.4, y1: 0.4, x2: 0.6, y2: 0.6 });
  });

  it('an empty file is an image with no shapes; a file outside a labels folder names its own path', async () => {
    const out = await read('obj_train_data/frame_000001.txt', '', names);
    expect([...out.images]).toEqual(['obj_train_data/frame_000001']);
    expect(out.annotations).toEqual([]);
    expect(out.problems).toEqual([]);
    // Only a whole `labels` folder is Ultralytics' one, and only the last.
    expect([...(await read('labels/x/labels/my_labels/b.txt', '', names)).images]).toEqual(['labels/x/images/my_labels/b']);
  });

  it('a class the list lacks is skipped as unknownClass with the index and the list size, counted', async () => {
    const out = await read('a.txt', '0 0.5 0.5 0.1 0.1\n7 0.5 0.5 0.1 0.1\n7 0.2 0.2 0.1 0.1\n3 0.5 0.5 0.1 0.1\n', names);
    expect(out.annotations).toHaveLength(1);
    expect(out.problems).toEqual([]);
    expect(out.skips).toEqual([
      { entry: 'a.txt', reason: 'unknownClass', vars: { index: 7, count: 3 }, count: 2 },
      { entry: 'a.txt', reason: 'unknownClass', vars: { index: 3, count: 3 }, count: 1 },
    ]);
  });

  it('without a class list every valid line is skipped as noClassList, and bad lines are still named', async () => {
    const out = await read('a.txt', '0 0.5 0.5 0.1 0.1\n1 0.1 0.1 0.2 0.1 0.15 0.2\nzero 0.5 0.5 0.1 0.1\n', null);
    expect(out.annotations).toEqual([]);
    expect(out.skips).toEqual([{ entry: 'a.txt', reason: 'noClassList', count: 2 }]);
    expect(fields(out)).toEqual(['line 3:yoloLine']);
    expect([...out.images]).toEqual(['a']);
  });
});

describe('malformed YOLO lines: badField with the line, never a throw', () => {
  const names = ['a', 'b'];
  it.each([
    ['a value that is text', '0 0.5 abc 0.1 0.1', 'line 1:yoloLine'],
    ['NaN', '0 NaN 0.5 0.1 0.1', 'line 1:yoloLine'],
    ['Infinity', '0 0.5 Infinity 0.1 0.1', 'line 1:yoloLine'],
    ['1e300', '0 0.5 0.5 1e300 0.1', 'line 1:yoloLine'],
    ['far outside 0–1', '0 2.5 0.5 0.1 0.1', 'line 1:yoloLine'],
    ['too few values', '0 0.5 0.5 0.1', 'line 1:yoloLine'],
    ['only a class', '1', 'line 1:yoloLine'],
    ['an odd polygon', '0 0.1 0.1 0.2 0.2 0.3 0.3 0.4', 'line 1:yoloLine'],
    ['a negative size', '\n0 0.5 0.5 -0.1 0.1', 'line 2:yoloLine'],
    ['a zero size', '0 0.5 0.5 0 0.1', 'line 1:yoloLine'],
    ['a class that is not whole', '0.5 0.5 0.5 0.1 0.1', 'line 1:classIndex'],
    ['a negative class', '-1 0.5 0.5 0.1 0.1', 'line 1:classIndex'],
    ['a huge class', '1e300 0.5 0.5 0.1 0.1', 'line 1:classIndex'],
    ['a hexadecimal class', '0x1 0.5 0.5 0.1 0.1', 'line 1:yoloLine'],
  ])('%s', async (_, line, want) => {
    const out = await read('labels/a.txt', `${line}\n1 0.5 0.5 0.2 0.2\n`, names);
    expect(fields(out)).toEqual([want]);
    expect(out.problems[0]).toMatchObject({ entry: 'labels/a.txt', key: 'annotationBadField', vars: { entry: 'labels/a.txt' } });
    expect(out.annotations.map((a) => a.label)).toEqual(['b']);
  });

  it('a line with more vertices than the studio allows', async () => {
    const line = ['0', ...Array.from({ length: 2 * LabelingLimits.polygonPointsMax + 2 }, (_, i) => String((i % 10) / 10))].join(' ');
    const out = await read('a.txt', line, names);
    expect(out.problems).toEqual([{ entry: 'a.txt', key: 'annotationTooManyPoints', vars: { entry: 'a.txt', max: LabelingLimits.polygonPointsMax } }]);
  });
});

describe('YOLO round trip: yoloWriter → findClassList → parseYolo, scaled by the image size', () => {
  const W = 640;
  const H = 480;
  const rbox = (angle: number): Geometry => ({ kind: 'rbox', cx: 320.5, cy: 200.25, w: 150, h: 60.5, angle });
  const shapes: { label: string; geometry: Geometry }[] = [
    { label: 'box', geometry: { kind: 'box', x1: 10.25, y1: 20.5, x2: 110, y2: 90.125 } },
    ...[0, 30, 95, -45].map((a) => ({ label: `rbox ${a}`, geometry: rbox(a) })),
    { label: 'poly', geometry: { kind: 'polygon', points: [[5, 5], [60.5, 8], [70, 66.25], [40, 90], [12, 50]] } },
  ];

  it('the same shapes come back: boxes as boxes, rotated boxes as their corners (a quad), polygons as polygons', async () => {
    const labels = shapes.map((s) => s.label);
    const img: ExportImage = { file: 'part 1.png', width: W, height: H, annotations: shapes.map((s, i) => ({ ...s, labelIndex: i })) };
    const empty: ExportImage = { file: 'blank.jpg', width: W, height: H, annotations: [] };
    const files = yoloWriter.files([img, empty], labels);
    expect(yoloWriter.imageDir).toBe('images/');
    expect(files.map((x) => x.path)).toEqual(['labels/part 1.txt', 'labels/blank.txt', 'classes.txt', 'data.yaml']);
    const list = findClassList(files);
    expect(list).toEqual({ entry: 'data.yaml', names: labels });
    const out = await read(files[0]!.path, files[0]!.data.toString(), list!.names);
    expect(out.problems).toEqual([]);
    expect([...out.images]).toEqual(['images/part 1']);
    expect(out.annotations.map((a) => a.label)).toEqual(labels);
    for (const [i, s] of shapes.entries()) {
      const got = out.annotations[i]!;
      expect(got.normalized).toBe(true);
      if (s.geometry.kind === 'box') {
        const g = got.geometry as Extract<Geometry, { kind: 'box' }>;
        for (const [a, b] of [[g.x1 * W, s.geometry.x1], [g.y1 * H, s.geometry.y1], [g.x2 * W, s.geometry.x2], [g.y2 * H, s.geometry.y2]] as const) expect(Math.abs(a - b)).toBeLessThan(0.01);
        continue;
      }
      expect(got.geometry.kind).toBe('polygon');
      expect(got.quad).toBe(s.geometry.kind === 'rbox' ? true : undefined);
      const want = (toExportable(s.geometry) as { points: [number, number][] }).points;
      const have = (got.geometry as { points: [number, number][] }).points.map(([x, y]) => [x * W, y * H]);
      expect(have).toHaveLength(want.length);
      have.forEach((p, k) => {
        expect(Math.abs(p[0]! - want[k]![0])).toBeLessThan(0.01);
        expect(Math.abs(p[1]! - want[k]![1])).toBeLessThan(0.01);
      });
    }
    const blank = await read(files[1]!.path, files[1]!.data.toString(), list!.names);
    expect([...blank.images]).toEqual(['images/blank']);
    expect(blank.annotations).toEqual([]);
    expect(isYoloLabelFile(files[1]!.path, files[1]!.data.toString())).toBe(true);
  });

  it('data.yaml quotes every name, so "007", "yes" and "a: b" stay names', () => {
    const labels = ['007', 'yes', 'a: b', 'null', 'Schraube ä'];
    const files = yoloWriter.files([], labels);
    expect(findClassList(files)).toEqual({ entry: 'data.yaml', names: labels });
    expect(files.find((x) => x.path === 'data.yaml')!.data.toString()).toContain('names:\n  0: "007"\n');
    expect(files.find((x) => x.path === 'classes.txt')!.data.toString()).toBe('007\nyes\na: b\nnull\nSchraube ä\n');
  });
});

describe('Ultralytics pose datasets (kpt_shape)', () => {
  // coco8-pose.yaml style: kpt_shape [17, 3] and a flip index; each line is a box and 17 (x, y, visibility).
  const poseYaml = `path: ../datasets/parts-pose\ntrain: images/train\nval: images/val\n\n# Keypoints\nkpt_shape: [3, 3] # number of keypoints, number of dims\nflip_idx: [0, 2, 1]\n\nnames:\n  0: gripper\n`;

  it('reads the box of each pose line and reports its labelled keypoints as points', async () => {
    const list = findClassList([f('data.yaml', poseYaml), f('labels/train/a.txt', '0 0.5 0.5 0.2 0.2 0.45 0.45 2 0.55 0.45 1 0 0 0\n')]);
    expect(list).toEqual({ entry: 'data.yaml', names: ['gripper'], kpt: [3, 3] });
    const out = emptyParsed();
    await parseYolo('labels/train/a.txt', '0 0.5 0.5 0.2 0.2 0.45 0.45 2 0.55 0.45 1 0 0 0\n0 0.2 0.2 0.1 0.1 0.2 0.2 2 0.21 0.2 2 0.22 0.2 2\n', list!.names, out, list!.kpt);
    expect(out.problems).toEqual([]);
    expect(out.annotations.map((a) => a.geometry.kind)).toEqual(['box', 'box']);
    expect(out.annotations[0]!.geometry).toMatchObject({ kind: 'box', x1: 0.4, x2: 0.6 });
    // 2 labelled keypoints on the first line (the third is (0, 0), invisible), 3 on the second.
    expect(out.skips).toEqual([{ entry: 'labels/train/a.txt', reason: 'point', count: 5 }]);
  });

  it('without kpt_shape, a pose line is named as malformed, not read as a polygon', async () => {
    const out = await read('labels/a.txt', '0 0.5 0.5 0.2 0.2 0.45 0.45 2 0.55 0.45 1 0 0 0\n', ['gripper']);
    expect(out.annotations).toEqual([]);
    expect(fields(out)).toEqual(['line 1:yoloLine']);
  });
});
