import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, createApprovedUser, createModel } from '../support/api.js';
import { autoSplit, choose, closeUpload, fillNumber, sessionToken, shownInSplit, uploadWithAnnotations } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { SHAPES, drawShapes, writeLabelMeZip } from '../support/shapes.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 gallery (images + LabelMe ZIP), /parameter, /train, /model, /test for a segmentation model. A user
 * uploads images with their polygons, trains a short segmenter, reads its mIoU, Dice, pixel accuracy and IoU
 * per class, tests it on the test split and sees the predicted masks filled in their label's colour over the
 * images, the annotations as outlines.
 */

const COUNT = 36;
const MODEL_NAME = `Plates ${Date.now().toString(36)}`;

/**
 * The pico encoder-decoder at 64 px with a fixed seed, AdamW at 0.01, no mosaic: the server's segmentation test
 * trains the same way and finds most shapes after four epochs; six leave more margin on a loaded machine.
 */
const NUMBERS = { imgsz: 64, epochs: 6, batch: 8, mosaic: 0, warmup_epochs: 0, seed: 5, lr0: 0.01 } as const;
const CHOICES = { model: ['p', 'Pico (p)'], optimizer: ['AdamW', 'AdamW'] } as const;

interface Box {
  labelId: number;
  matched: boolean;
}
interface TestImage {
  imageId: number;
  predictions: Box[];
  groundTruth: Box[];
}
interface Training {
  id: number;
  task: string;
  accuracy: number | null;
  summary: Record<string, number> | null;
}

test('segmentation: polygons from a LabelMe ZIP, a short training, mIoU and IoU per class, masks filled over the test images', async ({ user: page }, testInfo) => {
  test.setTimeout(240_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-segment-'));
  try {
    const images = await drawShapes(dir, COUNT, 'flat');
    const zip = path.join(dir, 'labelme.zip');
    await writeLabelMeZip(zip, images);
    const account = await createApprovedUser('segment');
    let modelId = 0;
    let testSplit = 0;

    await test.step('a segmentation model with 36 images and their polygons, split 60/20/20', async () => {
      await signInAsUser(page, account);
      modelId = (await createModel(await sessionToken(page), MODEL_NAME, 'SEGMENTATION')).id;
      await page.goto('/agentList');
      await page.getByTestId(`model-open-${modelId}`).click();
      await expect(page).toHaveURL(/\/gallery$/);
      await uploadWithAnnotations(page, images.map((i) => i.file), zip, COUNT);
      await closeUpload(page);
      const labels = await call<{ name: string }[]>('GET', `/api/models/${modelId}/labels`, undefined, await sessionToken(page));
      expect(labels.map((l) => l.name).sort()).toEqual([...SHAPES]);
      await autoSplit(page, { train: 60, valid: 20, test: 20 });
      testSplit = await shownInSplit(page, 'Test', COUNT);
    });

    await test.step('/parameter: pico at 64 px, six epochs, seed fixed', async () => {
      await page.goto('/parameter');
      await expect(page.getByTestId('param-form')).toBeVisible();
      for (const [key, [, label]] of Object.entries(CHOICES)) await choose(page, `param-${key}`, label);
      for (const [key, value] of Object.entries(NUMBERS)) await fillNumber(page, `param-${key}`, value);
      await page.getByTestId('param-save').click();
      await expect(page.getByTestId('param-saved-at')).toBeVisible();
    });

    let training: Training | undefined;
    await test.step('/train: the curves are mIoU, Dice and pixel accuracy; the accuracy is the mIoU', async () => {
      await page.goto('/train');
      await expect(page).toHaveURL(/\/train\/segmentation$/);
      await page.getByTestId('train-start').click();
      const trainingId = await page.getByTestId('train-progress').getAttribute('data-training-id');
      const row = page.getByTestId(`train-row-${trainingId}`);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 150_000, intervals: [1000] }).toMatch(/^(succeeded|failed|cancelled)$/);
      const failure = page.getByTestId('train-failed');
      expect(await row.getAttribute('data-status'), (await failure.count()) > 0 ? await failure.innerText() : '').toBe('succeeded');

      training = await call<Training>('GET', `/api/models/${modelId}/trainings/${trainingId}`, undefined, await sessionToken(page));
      expect(training.task).toBe('segment');
      const curves = page.getByTestId('train-history').getByTestId('train-curve-metrics');
      await expect(curves).toHaveAttribute('data-points', String(NUMBERS.epochs));
      await expect(curves).toHaveAttribute('data-series', 'mIoU dice pixel_accuracy');
      const losses = (await page.getByTestId('train-history').getByTestId('train-curve-loss').getAttribute('data-series'))!.split(' ');
      expect(losses).toEqual(expect.arrayContaining(['loss', 'loss_ce', 'loss_dice']));
      const accuracy = page.getByTestId(`train-accuracy-${trainingId}`);
      await expect(accuracy).toHaveAttribute('data-metric', 'mIoU');
      expect(Number(await accuracy.getAttribute('data-value'))).toBe(training.summary!.mIoU);
      await expect(page.getByTestId('train-versions').locator('th').filter({ hasText: 'Accuracy (mIoU)' })).toHaveCount(1);
      await expect(page.getByTestId('train-accuracy-trend')).toHaveAttribute('data-series', 'mIoU');
      await snap(page, testInfo, 'trained');
    });

    await test.step('/model: mIoU, Dice, pixel accuracy and the IoU of each class', async () => {
      await page.getByTestId('menu-model').click();
      await expect(page.getByTestId('model-page')).toHaveAttribute('data-version', 'v1');
      const value = async (field: string) => Number(await page.getByTestId(`model-info-${field}`).getAttribute('data-value'));
      await expect(page.getByTestId('model-info')).toBeVisible();
      expect(await value('mIoU')).toBe(training!.summary!.mIoU);
      for (const field of ['dice', 'pixelAccuracy']) {
        const v = await value(field);
        expect(v > 0 && v <= 1, `${field} ${v}`).toBe(true);
      }
      await expect(page.getByTestId('model-info-mAP50')).toHaveCount(0);
      await expect(page.getByTestId('model-class-iou')).toHaveAttribute('data-points', String(SHAPES.length));
      await expect(page.getByTestId('model-class-iou')).toHaveAttribute('data-series', 'iou dice');
      await expect(page.getByTestId('model-confusion')).toHaveCount(0);
      await snap(page, testInfo, 'model');
    });

    await test.step('/test on the test split: predicted masks filled in their label colour, annotations outlined', async () => {
      await page.getByTestId('menu-test').click();
      await expect(page).toHaveURL(/\/test\/segmentation$/);
      await page.getByTestId('test-source-testSplit').click();
      const started = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/models/${modelId}/tests`);
      await page.getByTestId('test-run').click();
      const body = (await (await started).json()) as { code: number; message: string; data: { id: number } };
      expect(body.code, body.message).toBe(0);
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', /^(succeeded|failed|cancelled)$/, { timeout: 90_000 });
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', 'succeeded');
      await expect(page.getByTestId('test-page')).toHaveAttribute('data-task', 'segment');
      await expect(page.getByTestId('test-results')).toHaveAttribute('data-total', String(testSplit));

      const token = await sessionToken(page);
      const run = await call<{ summary: { mIoU: number } }>('GET', `/api/models/${modelId}/tests/${body.data.id}`, undefined, token);
      const tested = (await call<{ items: TestImage[] }>('GET', `/api/models/${modelId}/tests/${body.data.id}/images?pageSize=200`, undefined, token)).items;
      expect(tested).toHaveLength(testSplit);
      const polygons = (img: TestImage) => img.predictions.length;
      for (const img of tested) {
        const overlay = page.getByTestId(`test-overlay-${img.imageId}`);
        // Every predicted region is a filled mask (none dashed); every annotation an unfilled outline.
        await expect(overlay).toHaveAttribute('data-filled', String(img.predictions.length));
        await expect(overlay).toHaveAttribute('data-dashed', '0');
        await expect(overlay.locator('[data-testid="test-shape"][data-role="gt"], [data-testid="test-shape"][data-role="fn"]')).toHaveCount(img.groundTruth.length);
      }
      const found = tested.filter((img) => polygons(img) > 0);
      console.log(`segmentation: mIoU ${run.summary.mIoU} on ${testSplit} test images, ${found.length} with a predicted mask; validation mIoU ${training!.accuracy}`);
      expect(found.length, 'test images with a predicted mask').toBeGreaterThan(0);
      const mask = page.getByTestId(`test-overlay-${found[0]!.imageId}`).locator('[data-testid="test-shape"][data-filled="true"]').first();
      const label = await mask.getAttribute('data-label-id');
      const colour = await call<{ id: number; color: string }[]>('GET', `/api/models/${modelId}/labels`, undefined, token).then((ls) => ls.find((l) => String(l.id) === label)!.color);
      await expect(mask).toHaveAttribute('fill', colour);
      const opacity = Number(await mask.getAttribute('fill-opacity'));
      expect(opacity > 0 && opacity < 1, `fill-opacity ${opacity}`).toBe(true);
      await expect(page.getByTestId(`test-overlay-${found[0]!.imageId}`).locator('[data-testid="test-shape"][data-role="gt"], [data-testid="test-shape"][data-role="fn"]').first()).toHaveAttribute('fill', 'none');

      await expect(page.getByTestId('test-metric-miou')).toHaveAttribute('data-value', `${(run.summary.mIoU * 100).toFixed(1)} %`);
      await expect(page.getByTestId('test-metric-pixel-accuracy')).toBeVisible();
      await expect(page.getByTestId('test-chart')).toHaveAttribute('data-series', 'iou dice');
      await expect(page.getByTestId('test-chart')).toHaveAttribute('data-points', String(SHAPES.length));
      await snap(page, testInfo, 'segmentation-results');

      // The viewer draws the same masks at full size.
      await page.getByTestId(`test-result-${found[0]!.imageId}`).click();
      await expect(page.getByTestId('test-viewer').getByTestId(`test-overlay-${found[0]!.imageId}`)).toHaveAttribute('data-filled', String(polygons(found[0]!)));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
