import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, createApprovedUser } from '../support/api.js';
import {
  autoSplit,
  choose,
  closeUpload,
  createDetectionModel,
  sessionToken,
  shownInSplit,
  uploadWithAnnotations,
  type ModelRef,
} from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';
import {
  HEIGHT,
  LABELS,
  WIDTH,
  boxesOf,
  drawImages,
  drawJpeg,
  readZip,
  writeBrokenJpeg,
  writeTextAsJpeg,
  writeVocZip,
  zipOf,
  type DrawnBox,
  type DrawnImage,
} from '../support/images.js';

/**
 * SPEC §2 /agentList, /creatModel, /gallery, /download/downloadImage; §5 images, annotation ZIP, auto split.
 * A user builds a labelled detection dataset from images and a Pascal VOC ZIP, splits it, exports COCO and
 * rebuilds the same dataset in a second model from the export; both models must hold the same annotations.
 * Issue 33: a labelled ZIP (images + LabelMe files) imported straight from the wizard, whose report names the
 * shape it left out, on the page and in the downloaded CSV.
 */

const COUNT = 40;
const MODEL_NAMES = { first: `Welds ${Date.now().toString(36)}`, second: `Welds copy ${Date.now().toString(36)}` };

interface Box {
  label: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** Every image's boxes by file name, read through the gallery and annotation endpoints with the user's token. */
async function annotationsOf(token: string, modelId: number): Promise<Map<string, Box[]>> {
  const labels = await call<{ id: number; name: string }[]>('GET', `/api/models/${modelId}/labels`, undefined, token);
  const labelName = new Map(labels.map((l) => [l.id, l.name]));
  const list = await call<{ items: { id: number; name: string }[]; total: number }>(
    'GET',
    `/api/models/${modelId}/images?pageSize=200`,
    undefined,
    token,
  );
  expect(list.total).toBe(list.items.length);
  const out = new Map<string, Box[]>();
  for (const img of list.items) {
    const a = await call<{ annotations: { labelId: number; geometry: { kind: string; x1: number; y1: number; x2: number; y2: number } }[] }>(
      'GET',
      `/api/models/${modelId}/images/${img.id}/annotations`,
      undefined,
      token,
    );
    const boxes = a.annotations.map((x) => {
      expect(x.geometry.kind, `${img.name} in model ${modelId}`).toBe('box');
      return { label: labelName.get(x.labelId) ?? `?${x.labelId}`, x1: x.geometry.x1, y1: x.geometry.y1, x2: x.geometry.x2, y2: x.geometry.y2 };
    });
    out.set(img.name, boxes.sort((p, q) => p.x1 - q.x1 || p.y1 - q.y1));
  }
  return out;
}

function expectSameBoxes(actual: Box[], expected: Box[], what: string): void {
  expect(actual.map((b) => b.label), what).toEqual(expected.map((b) => b.label));
  actual.forEach((b, i) => {
    const e = expected[i]!;
    for (const k of ['x1', 'y1', 'x2', 'y2'] as const) {
      expect(Math.abs(b[k] - e[k]), `${what}: box ${i} ${k} ${b[k]} vs ${e[k]}`).toBeLessThanOrEqual(1);
    }
  });
}

test('a detection dataset from images and a VOC ZIP, auto split, COCO export and re-import', async ({ user: page }, testInfo) => {
  test.setTimeout(150_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-datasets-'));
  try {
    const images: DrawnImage[] = await drawImages(dir, COUNT);
    const vocZip = path.join(dir, 'voc-annotations.zip');
    await writeVocZip(vocZip, images);
    const notes = path.join(dir, 'notes.jpg');
    writeTextAsJpeg(notes);
    const broken = path.join(dir, 'broken.jpg');
    writeBrokenJpeg(broken);
    const drawn = new Map(images.map((img) => [img.name, [...img.boxes].sort((p, q) => p.x1 - q.x1 || p.y1 - q.y1)]));

    const account = await createApprovedUser('datasets');
    let first: ModelRef;
    let second: ModelRef;

    await test.step('sign in and create a detection model, which opens on its gallery', async () => {
      await signInAsUser(page, account);
      first = await createDetectionModel(page, MODEL_NAMES.first);
      await expect(page.getByTestId('sidebar')).toBeVisible();
      await expect(page.getByTestId('image-grid-empty')).toBeVisible();
    });

    await test.step('upload 40 drawn images and two non-images, then the VOC ZIP; the summary tells what happened', async () => {
      await uploadWithAnnotations(page, [...images.map((i) => i.file), notes, broken], vocZip, COUNT);
      const summary = page.getByTestId('upload-summary');
      // SPEC §5: the server judges the bytes, not the name; each refused file shows with the catalogue reason.
      await expect(summary).toContainText('Refused: 2');
      await expect(summary.locator('[data-testid="upload-summary-row"][data-name="notes.jpg"]')).toContainText(
        'Only JPG, JPEG, PNG, WebP, BMP, MPO and TIFF images can be uploaded.',
      );
      await expect(summary.locator('[data-testid="upload-summary-row"][data-name="broken.jpg"]')).toContainText('File check failed');
      const imported = page.getByTestId('upload-summary-annotations');
      const boxCount = images.reduce((n, i) => n + i.boxes.length, 0);
      await expect(imported).toContainText(`${boxCount} annotations on ${COUNT} images imported`);
      for (const label of LABELS) await expect(imported).toContainText(label);
      await snap(page, testInfo, 'voc-summary');
      await closeUpload(page);
    });

    await test.step('the gallery shows all 40 images labeled, with both labels', async () => {
      await expect(page.getByTestId('gallery-count')).toContainText(`${COUNT} shown of ${COUNT} images`);
      await choose(page, 'gallery-filter', 'Labeled');
      await expect(page.getByTestId('gallery-count')).toContainText(`${COUNT} shown of ${COUNT} images`);
      await expect(page.getByTestId('image-grid')).toHaveAttribute('data-total', String(COUNT));
      const panel = page.getByTestId('label-panel');
      for (const label of LABELS) {
        await expect(panel.locator(`[data-name="${label}"]`)).toHaveCount(1);
        const carrying = images.filter((i) => i.boxes.some((b) => b.label === label)).length;
        await expect(panel.locator(`[data-name="${label}"]`)).toContainText(`Images: ${carrying}`);
      }
      await choose(page, 'gallery-filter', 'Unlabeled');
      await expect(page.getByTestId('gallery-count')).toContainText(`0 shown of ${COUNT} images`);
      // Back to "Labeled" (all 40 here); the split filter below combines with it.
      await choose(page, 'gallery-filter', 'Labeled');
    });

    await test.step('the VOC boxes are the drawn rectangles', async () => {
      const stored = await annotationsOf(await sessionToken(page), first.id);
      expect([...stored.keys()].sort()).toEqual([...drawn.keys()].sort());
      for (const [name, boxes] of stored) expectSameBoxes(boxes, drawn.get(name)!, `${name} (VOC)`);
    });

    await test.step('auto split 70/20/10 with the confirmation tick; train and validation filters show images', async () => {
      await autoSplit(page, { train: 70, valid: 20, test: 10 });
      const train = await shownInSplit(page, 'Train', COUNT);
      const valid = await shownInSplit(page, 'Validation', COUNT);
      const test_ = await shownInSplit(page, 'Test', COUNT);
      expect(train + valid + test_).toBe(COUNT);
      expect(train).toBeGreaterThan(valid);
      await snap(page, testInfo, 'split-test-filter');
      await choose(page, 'gallery-split-filter', 'Any split');
    });

    let cocoZip = '';
    await test.step('export COCO from /download/downloadImage', async () => {
      await page.goto('/download/downloadImage');
      await expect(page.getByTestId('download-images')).toBeVisible();
      await page.getByTestId('export-format-coco').click();
      const download = page.waitForEvent('download');
      await page.getByTestId('export-download').click();
      const file = path.join(dir, 'export-coco.zip');
      await (await download).saveAs(file);
      const entries = await readZip(file);
      const jsonPath = [...entries.keys()].find((p) => p.endsWith('.json'));
      expect(jsonPath, `entries: ${[...entries.keys()].slice(0, 10).join(', ')}`).toBeTruthy();
      const coco = JSON.parse(entries.get(jsonPath!)!.toString('utf8')) as { images: unknown[]; categories: { name: string }[] };
      expect(coco.images).toHaveLength(COUNT);
      expect(coco.categories.map((c) => c.name).sort()).toEqual([...LABELS].sort());
      // Only the annotation JSON goes back in, so the second model's boxes can only come from it.
      cocoZip = path.join(dir, 'coco-annotations.zip');
      writeFileSync(cocoZip, await zipOf([{ path: 'annotations.json', data: entries.get(jsonPath!)! }]));
    });

    await test.step('a second detection model gets the same images and the exported COCO annotations', async () => {
      second = await createDetectionModel(page, MODEL_NAMES.second);
      await uploadWithAnnotations(page, images.map((i) => i.file), cocoZip, COUNT);
      const summary = page.getByTestId('upload-summary');
      await expect(summary).toContainText('Refused: 0');
      await expect(page.getByTestId('upload-summary-annotations')).toContainText(`on ${COUNT} images imported`);
      await closeUpload(page);
      await choose(page, 'gallery-filter', 'Labeled');
      await expect(page.getByTestId('gallery-count')).toContainText(`${COUNT} shown of ${COUNT} images`);
    });

    await test.step('both models hold the same file names, labels and boxes', async () => {
      const token = await sessionToken(page);
      const a = await annotationsOf(token, first.id);
      const b = await annotationsOf(token, second.id);
      expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
      for (const [name, boxes] of a) expectSameBoxes(b.get(name)!, boxes, `${name} (COCO round trip)`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A LabelMe 5.x file as labelme writes it beside its image: rectangles by two corners, and a point (no geometry). */
function labelmeJson(image: string, boxes: DrawnBox[], points: { label: string; x: number; y: number }[]): string {
  const shape = (label: string, points: number[][], shape_type: string) => ({ label, points, group_id: null, description: '', shape_type, flags: {}, mask: null });
  return JSON.stringify(
    {
      version: '5.4.1',
      flags: {},
      shapes: [
        ...boxes.map((b) => shape(b.label, [[b.x1, b.y1], [b.x2, b.y2]], 'rectangle')),
        ...points.map((p) => shape(p.label, [[p.x, p.y]], 'point')),
      ],
      imagePath: image,
      imageData: null,
      imageHeight: HEIGHT,
      imageWidth: WIDTH,
    },
    null,
    2,
  );
}

test('a labelled LabelMe ZIP imported straight from the wizard: its images added, the point named in the report and its download', async ({ user: page }, testInfo) => {
  test.setTimeout(60_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-labelled-'));
  try {
    // Two images with 2 and 1 boxes (boxesOf 0 and 1), and one point shape that Loupe has no geometry for.
    const images = [0, 1].map((i) => ({ name: `labelled-${i}.jpg`, boxes: boxesOf(i) }));
    const point = 'point shape: points are not a shape Loupe trains on';
    const zip = path.join(dir, 'labelme-dataset.zip');
    const entries = [];
    for (const [i, img] of images.entries()) {
      entries.push({ path: `shots/${img.name}`, data: await drawJpeg(i, img.boxes) });
      const points = i === 0 ? [{ label: LABELS[0], x: 120, y: 20 }] : [];
      entries.push({ path: `shots/${img.name.replace('.jpg', '.json')}`, data: Buffer.from(labelmeJson(img.name, img.boxes, points)) });
    }
    writeFileSync(zip, await zipOf(entries));

    const account = await createApprovedUser('labelled-zip');
    await signInAsUser(page, account);
    const model = await createDetectionModel(page, `Labelled ${Date.now().toString(36)}`);

    await page.getByTestId('upload-open').click();
    await page.getByTestId('upload-mode-labelledZip').click();
    // Straight to the ZIP: no image upload before it.
    await expect(page.getByTestId('upload-zip-step')).toContainText('LabelMe / X-AnyLabeling JSON');
    await page.getByTestId('upload-zip-input').setInputFiles(zip);
    await page.getByTestId('upload-zip-start').click();
    const summary = page.getByTestId('upload-summary');
    await expect(summary).toBeVisible({ timeout: 30_000 });
    // A shape left out is not a clean success.
    await expect(summary).toHaveAttribute('data-status', 'warning');
    const line = page.getByTestId('upload-summary-annotations');
    await expect(line).toContainText('3 annotations on 2 images imported from 2 files');
    await expect(line).toContainText('2 images added, 1 shape skipped');
    await expect(page.getByTestId('import-report-skipped')).toHaveText('1 shape was not imported: see why below.');
    await expect(page.getByTestId('import-report-reasons')).toContainText(`1 ${point}`);
    await snap(page, testInfo, 'labelled-zip-report');

    const download = page.waitForEvent('download');
    await page.getByTestId('upload-report-download').click();
    const saved = await download;
    expect(saved.suggestedFilename()).toMatch(/^Labelled .*-import-report\.csv$/);
    const file = path.join(dir, 'report.csv');
    await saved.saveAs(file);
    const report = readFileSync(file, 'utf8');
    expect(report).toContain(point);
    expect(report).toContain('shots/labelled-0.json');

    await closeUpload(page);
    await expect(page.getByTestId('gallery-count')).toContainText('2 shown of 2 images');
    const stored = await annotationsOf(await sessionToken(page), model.id);
    expect([...stored.keys()].sort()).toEqual(images.map((i) => i.name));
    for (const img of images) expectSameBoxes(stored.get(img.name)!, [...img.boxes].sort((p, q) => p.x1 - q.x1 || p.y1 - q.y1), `${img.name} (LabelMe ZIP)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
