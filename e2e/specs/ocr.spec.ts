import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, createApprovedUser, createModel, setDownloadPermission, uploadImages } from '../support/api.js';
import { fillNumber, sessionToken } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { unzipTo } from '../support/sdk.js';
import { signInAsUser } from '../support/ui.js';
import { H, lineImage, lineOf, W } from '../../apps/server/test/text-lines.js';

/**
 * SPEC §2 /train, /model, /test, /download for an OCR model. The labeling studio's OCR box and text have their
 * own spec (mark.spec.ts), so the 30 text images are labeled through the API: each a rotated box with the four
 * digits it shows. The user trains the text detector and the recognizer, watches the character accuracy,
 * reads the model info, tests on the test split (each found line drawn with the text read in it, the true text
 * beside it) and downloads the model file: a ZIP with both graphs.
 */

const COUNT = 30;
const MODEL_NAME = `Serials ${Date.now().toString(36)}`;
/**
 * Ten epochs of the pico detector at 64 px and the recognizer, one image per step: about 60 s on a quiet machine.
 * That is far too short to read well (the engine's tests and `bench:ocr` measure reading); here the lines found
 * score about 0.01, so the test runs at CONF to have lines to show. Six epochs were on the edge: with OpenBLAS's
 * rounding instead of the reference BLAS's they found no line at all (ten: 6 lines with seed 3 and with seed 5).
 */
const PARAMS = { model: 'p', imgsz: 64, epochs: 10, batch: 1, mosaic: 0, warmup_epochs: 0, seed: 3, optimizer: 'AdamW', lr0: 0.005 };
const CONF = 0.005;

interface TestImage {
  imageId: number;
  predictions: { geometry: { kind: string; text?: string }; matched: boolean }[];
  groundTruth: { geometry: { text?: string } }[];
}

test('OCR: labeled text lines, a short training, character accuracy, lines read on the test images, the two-graph model file', async ({ user: page }, testInfo) => {
  test.setTimeout(240_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-ocr-'));
  try {
    const account = await createApprovedUser('ocr');
    let modelId = 0;
    let images: number[] = [];

    await test.step('an OCR model with 30 labeled text lines, split 20/5/5', async () => {
      await signInAsUser(page, account);
      const token = await sessionToken(page);
      modelId = (await createModel(token, MODEL_NAME, 'OCR')).id;
      images = await uploadImages(token, modelId, await Promise.all(Array.from({ length: COUNT }, async (_, i) => ({ name: `line_${i}.png`, data: await lineImage(i) }))));
      const label = await call<{ id: number }>('POST', `/api/models/${modelId}/labels`, { name: 'serial' }, token);
      for (const [i, id] of images.entries()) {
        await call('PUT', `/api/models/${modelId}/images/${id}/annotations`, { baseVersion: 0, annotations: [{ labelId: label.id, geometry: lineOf(i).box }] }, token);
      }
      const split = { train: images.slice(0, 20), valid: images.slice(20, 25), test: images.slice(25) };
      for (const [name, ids] of Object.entries(split)) await call('POST', `/api/models/${modelId}/images/split`, { ids, split: name }, token);
      await call('PUT', `/api/models/${modelId}/parameters`, { params: PARAMS }, token);
      // The gallery shows what the API made: 30 images, every one labeled.
      await page.goto('/agentList');
      await page.getByTestId(`model-open-${modelId}`).click();
      await expect(page).toHaveURL(/\/gallery$/);
    });

    await test.step('/train: the run reports character accuracy per epoch; the version’s accuracy is it', async () => {
      await page.goto('/train');
      await expect(page).toHaveURL(/\/train\/ocr$/);
      await expect(page.getByTestId('train-params-note')).toHaveAttribute('data-changed', String(Object.keys(PARAMS).length));
      await page.getByTestId('train-start').click();
      const trainingId = await page.getByTestId('train-progress').getAttribute('data-training-id');
      const row = page.getByTestId(`train-row-${trainingId}`);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 150_000, intervals: [1000] }).toMatch(/^(succeeded|failed|cancelled)$/);
      const failure = page.getByTestId('train-failed');
      expect(await row.getAttribute('data-status'), (await failure.count()) > 0 ? await failure.innerText() : '').toBe('succeeded');
      await row.click();
      await expect(page.getByTestId('train-curve-metrics')).toHaveAttribute('data-points', String(PARAMS.epochs));
      await expect(page.getByTestId('train-curve-metrics')).toHaveAttribute('data-series', /char_acc/);
      // Under 30 labeled images no accuracy is shown (SPEC §5): 30 here, so it is the character accuracy.
      await expect(page.getByTestId(`train-accuracy-${trainingId}`)).toHaveAttribute('data-metric', 'char_acc');
      await snap(page, testInfo, 'trained');
    });

    await test.step('/model: character and line accuracy, normalised edit distance, the text detector’s figures', async () => {
      await page.getByTestId('menu-model').click();
      await expect(page.getByTestId('model-page')).toHaveAttribute('data-version', 'v1');
      for (const field of ['charAcc', 'lineAcc', 'ned', 'mAP50']) {
        const v = Number(await page.getByTestId(`model-info-${field}`).getAttribute('data-value'));
        expect(v >= 0 && v <= 1, `${field} ${v}`).toBe(true);
      }
      await expect(page.getByTestId('model-pr-curve')).toBeVisible();
    });

    await test.step('/test: each line found is drawn with the text read, the true text beside it', async () => {
      await page.getByTestId('menu-test').click();
      await expect(page).toHaveURL(/\/test\/ocr$/);
      await page.getByTestId('test-source-testSplit').click();
      await fillNumber(page, 'test-conf', CONF);
      await page.getByTestId('test-run').click();
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', /^(succeeded|failed|cancelled)$/, { timeout: 90_000 });
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', 'succeeded');
      await expect(page.getByTestId('test-page')).toHaveAttribute('data-task', 'ocr');
      for (const metric of ['char-acc', 'line-acc', 'ned']) await expect(page.getByTestId(`test-metric-${metric}`)).toBeVisible();
      await expect(page.getByTestId('test-results')).toHaveAttribute('data-total', '5');

      const token = await sessionToken(page);
      const runs = await call<{ items: { id: number }[] }>('GET', `/api/models/${modelId}/tests`, undefined, token);
      const tested = (await call<{ items: TestImage[] }>('GET', `/api/models/${modelId}/tests/${runs.items[0]!.id}/images?pageSize=50`, undefined, token)).items;
      for (const img of tested) {
        const truth = lineOf(images.indexOf(img.imageId)).text;
        expect(img.groundTruth.map((g) => g.geometry.text)).toEqual([truth]);
        const overlay = page.getByTestId(`test-overlay-${img.imageId}`);
        // The true text is drawn on every card; each line found carries the text read.
        await expect(overlay.locator('[data-testid="test-shape"][data-role="gt"], [data-testid="test-shape"][data-role="fn"]').first()).toHaveAttribute('data-text', truth);
        const shown = overlay.locator('[data-testid="test-shape"][data-role="tp"], [data-testid="test-shape"][data-role="fp"], [data-testid="test-shape"][data-role="pred"]');
        await expect(shown).toHaveCount(img.predictions.length);
        for (const [k, p] of img.predictions.entries()) {
          expect(p.geometry.kind).toBe('rbox');
          await expect(shown.nth(k)).toHaveAttribute('data-text', p.geometry.text ?? '');
        }
      }
      const found = tested.flatMap((img) => img.predictions);
      console.log(`ocr: ${found.length} lines found on the 5 test images, ${found.filter((p) => p.matched).length} read exactly`);
      expect(found.length, 'lines found on the test images').toBeGreaterThan(0);
      await snap(page, testInfo, 'test-results');
    });

    await test.step('/download/downloadModel: the model file is a ZIP of the text detector and the recognizer', async () => {
      await setDownloadPermission(account.email, true);
      await page.goto('/download/downloadModel');
      await expect(page.getByTestId('export-form')).toBeVisible();
      await fillNumber(page, 'export-width', W);
      await fillNumber(page, 'export-height', H);
      await fillNumber(page, 'export-max-det', 20);
      // OCR finds text lines at any angle: the rotated-box type.
      await expect(page.locator('input[data-testid="export-rotated-yes"], [data-testid="export-rotated-yes"] input')).toBeChecked();
      await page.getByTestId('export-submit').click();
      const prompt = page.getByTestId('pack-download-prompt');
      await expect(prompt).toBeVisible({ timeout: 150_000 });
      const download = page.waitForEvent('download');
      await prompt.click();
      const file = await download;
      expect(file.suggestedFilename()).toBe(`${MODEL_NAME}-v1-${W}x${H}-ocr.zip`);
      const zip = path.join(dir, file.suggestedFilename());
      await file.saveAs(zip);
      expect((await unzipTo(zip, path.join(dir, 'model'))).sort()).toEqual(['labels.json', 'model-rec.onnx', 'model.onnx']);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
