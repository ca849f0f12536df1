import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { call, createApprovedUser } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';
import {
  LABELS,
  drawImages,
  readZip,
  writeBrokenJpeg,
  writeTextAsJpeg,
  writeVocZip,
  zipOf,
  type DrawnImage,
} from '../support/images.js';

/**
 * SPEC §2 /agentList, /creatModel, /gallery, /download/downloadImage; §5 images, annotation ZIP, auto split.
 * A user builds a labelled detection dataset from images and a Pascal VOC ZIP, splits it, exports COCO and
 * rebuilds the same dataset in a second model from the export; both models must hold the same annotations.
 */

const COUNT = 40;
const MODEL_NAMES = { first: `Welds ${Date.now().toString(36)}`, second: `Welds copy ${Date.now().toString(36)}` };

interface ModelRef {
  id: number;
}

/** The box of an Ant Design modal whose test id sits on its (sizeless) root element. */
function modal(page: Page, testId: string) {
  return page.getByTestId(testId).locator('.ant-modal').first();
}

/** Create a detection model through the dialog on /agentList; the new model opens on its gallery. */
async function createDetectionModel(page: Page, name: string): Promise<ModelRef> {
  await page.goto('/agentList');
  await expect(page.getByTestId('model-list')).toBeVisible();
  await page.getByTestId('create-model').click();
  await expect(modal(page, 'create-model-dialog')).toBeVisible();
  await page.getByTestId('model-type-DETECTION').click();
  await page.getByTestId('create-model-name').fill(name);
  const created = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/models');
  await page.getByTestId('create-model-submit').click();
  const body = (await (await created).json()) as { code: number; message: string; data: { id: number } };
  expect(body.code, body.message).toBe(0);
  await expect(page).toHaveURL(/\/gallery$/);
  await expect(page.getByTestId('gallery')).toBeVisible();
  await expect(page.getByTestId('sidebar-project')).toContainText(name);
  return { id: body.data.id };
}

/** The "images + annotation ZIP" wizard from the gallery: pick, send, then the ZIP, ending on the summary. */
async function uploadWithAnnotations(page: Page, files: string[], zip: string, expectAccepted: number): Promise<void> {
  await page.getByTestId('upload-open').click();
  await expect(modal(page, 'upload-wizard')).toBeVisible();
  await page.getByTestId('upload-mode-imagesWithAnnotations').click();
  await page.getByTestId('upload-file-input').setInputFiles(files);
  await expect(page.getByTestId('upload-selection')).toContainText(String(files.length));
  await page.getByTestId('upload-start').click();
  await expect(page.getByTestId('upload-next')).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('upload-next').click();
  await expect(page.getByTestId('upload-zip-step')).toBeVisible();
  await page.getByTestId('upload-zip-input').setInputFiles(zip);
  await page.getByTestId('upload-zip-start').click();
  const summary = page.getByTestId('upload-summary');
  await expect(summary).toBeVisible({ timeout: 30_000 });
  await expect(summary).toContainText(`Images uploaded: ${expectAccepted}`);
}

/** Pick an option of an Ant Design select found by its test id. */
async function choose(page: Page, testId: string, option: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: new RegExp(`^${option}$`) })
    .first()
    .click();
  await expect(page.getByTestId(testId)).toContainText(option);
}

/** Fill an Ant Design InputNumber whose test id may sit on the input or on its wrapper. */
async function fillNumber(page: Page, testId: string, value: number): Promise<void> {
  const el = page.getByTestId(testId);
  const input = (await el.evaluate((n) => n.tagName)) === 'INPUT' ? el : el.locator('input');
  await input.fill(String(value));
}

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
        'Only JPG, JPEG, PNG, BMP, MPO and TIFF images can be uploaded.',
      );
      await expect(summary.locator('[data-testid="upload-summary-row"][data-name="broken.jpg"]')).toContainText('File check failed');
      const imported = page.getByTestId('upload-summary-annotations');
      const boxCount = images.reduce((n, i) => n + i.boxes.length, 0);
      await expect(imported).toContainText(`${boxCount} annotations on ${COUNT} images imported`);
      for (const label of LABELS) await expect(imported).toContainText(label);
      await snap(page, testInfo, 'voc-summary');
      await page.getByTestId('upload-close').click();
      await expect(modal(page, 'upload-wizard')).toBeHidden();
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
      const token = await page.evaluate(() => localStorage.getItem('token'));
      expect(token).toBeTruthy();
      const stored = await annotationsOf(token!, first.id);
      expect([...stored.keys()].sort()).toEqual([...drawn.keys()].sort());
      for (const [name, boxes] of stored) expectSameBoxes(boxes, drawn.get(name)!, `${name} (VOC)`);
    });

    await test.step('auto split 70/20/10 with the confirmation tick; train and validation filters show images', async () => {
      await page.getByTestId('auto-split-open').click();
      await expect(modal(page, 'auto-split-dialog')).toBeVisible();
      await fillNumber(page, 'auto-split-train', 70);
      await fillNumber(page, 'auto-split-valid', 20);
      await fillNumber(page, 'auto-split-test', 10);
      // Without the tick the split does not run.
      await expect(page.getByTestId('auto-split-run')).toBeDisabled();
      await page.getByTestId('auto-split-confirm').click();
      await expect(page.getByTestId('auto-split-run')).toBeEnabled();
      await page.getByTestId('auto-split-run').click();
      await expect(modal(page, 'auto-split-dialog')).toBeHidden();
      const shown = async (split: string) => {
        await choose(page, 'gallery-split-filter', split);
        const count = page.getByTestId('gallery-count');
        await expect(count).toContainText(new RegExp(`^\\d+ shown of ${COUNT} images$`));
        await expect(count).not.toContainText(/^0 shown/);
        return Number((await count.textContent())!.split(' ')[0]);
      };
      const train = await shown('Train');
      const valid = await shown('Validation');
      const test_ = await shown('Test');
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
      await page.getByTestId('upload-close').click();
      await choose(page, 'gallery-filter', 'Labeled');
      await expect(page.getByTestId('gallery-count')).toContainText(`${COUNT} shown of ${COUNT} images`);
    });

    await test.step('both models hold the same file names, labels and boxes', async () => {
      const token = await page.evaluate(() => localStorage.getItem('token'));
      const a = await annotationsOf(token!, first.id);
      const b = await annotationsOf(token!, second.id);
      expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
      for (const [name, boxes] of a) expectSameBoxes(b.get(name)!, boxes, `${name} (COCO round trip)`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
