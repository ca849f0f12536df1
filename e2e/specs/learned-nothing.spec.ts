import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { call, createApprovedUser } from '../support/api.js';
import { autoSplit, choose, closeUpload, createDetectionModel, fillNumber, sessionToken, shownInSplit, uploadWithAnnotations } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { drawImages, writeVocZip } from '../support/images.js';
import { signInAsUser } from '../support/ui.js';

/**
 * Issue 31 item 2, "a training that learned nothing says so, and says why". A user with a few drawn images asks
 * for one epoch at a tiny image size: /train warns before the start (the epochs that would be enough, and the
 * image size that keeps the boxes above the detector's 8 px grid), and the warnings follow the saved parameters.
 * The one-epoch detector learns nothing: /train and /model say "learned nothing usable" with advice from that
 * training, not a green "Succeeded" alone, and /test offers no "best F1 at confidence …, use it".
 */

const COUNT = 24;
const MODEL_NAME = `Nothing ${Date.now().toString(36)}`;

/** Saves parameters at /parameter as the user does (choices, numbers, Save). */
async function saveParams(page: Page, numbers: Record<string, number>, choices: Record<string, string> = {}): Promise<void> {
  await page.goto('/parameter');
  await expect(page.getByTestId('param-form')).toBeVisible();
  for (const [key, label] of Object.entries(choices)) await choose(page, `param-${key}`, label);
  for (const [key, value] of Object.entries(numbers)) await fillNumber(page, `param-${key}`, value);
  await page.getByTestId('param-save').click();
  await expect(page.getByTestId('param-unsaved')).toBeHidden();
  await expect(page.getByTestId('param-saved-at')).toBeVisible();
}

test('a one-epoch training is warned about before it starts, and says after that it learned nothing usable, with advice', async ({ user: page }, testInfo) => {
  test.setTimeout(110_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-nothing-'));
  try {
    const images = await drawImages(dir, COUNT);
    const vocZip = path.join(dir, 'voc-annotations.zip');
    await writeVocZip(vocZip, images);
    const account = await createApprovedUser('nothing');
    let modelId = 0;

    await test.step('a detection model with 24 labelled 160×120 images, split 70/20/10', async () => {
      await signInAsUser(page, account);
      modelId = (await createDetectionModel(page, MODEL_NAME)).id;
      await uploadWithAnnotations(page, images.map((i) => i.file), vocZip, COUNT);
      await closeUpload(page);
      await autoSplit(page, { train: 70, valid: 20, test: 10 });
      await shownInSplit(page, 'Test', COUNT);
    });

    let enoughEpochs = 0;
    await test.step('one epoch at 32 px: /train estimates the time and warns, with the epochs and the size that would be enough', async () => {
      await saveParams(page, { imgsz: 32, epochs: 1, mosaic: 0, warmup_epochs: 0, seed: 5 }, { model: 'Pico (p)' });
      await page.goto('/train');
      await expect(page).toHaveURL(/\/train\/detection$/);
      const estimate = page.getByTestId('train-estimate');
      await expect(estimate).toBeVisible();
      // The basis is said: the cautious table, or this server's past trainings when specs before this one trained.
      await expect(page.getByTestId('train-estimate-time')).toHaveText(/^About \d+ (s|min \d\d s) of training on this server$/);
      await expect(estimate).toContainText(/this server has not trained this model size yet|from this server's past trainings of this model size \(\d+\)/);
      await expect(page.getByTestId('train-estimate-plan')).toContainText('over the planned epochs (1)');
      const epochs = page.getByTestId('train-warnings-epochs');
      await expect(epochs).toContainText(/Only \d+ optimizer steps.*Use at least \d+ epochs\./);
      enoughEpochs = Number(/at least (\d+) epochs/.exec((await epochs.textContent())!)![1]);
      expect(enoughEpochs).toBeGreaterThanOrEqual(40);
      // The smallest boxes are 25 px of 160: at 32 px a quarter of them are 5 px, below the 8 px grid.
      await expect(page.getByTestId('train-warnings-imgsz')).toContainText('Use an image size of at least 64.');
      await snap(page, testInfo, 'warned');
    });

    let trainingId = '';
    await test.step('at 64 px the size warning is gone, the epochs warning stays; start anyway', async () => {
      await saveParams(page, { imgsz: 64 });
      await page.goto('/train');
      await expect(page.getByTestId('train-warnings-epochs')).toContainText(`Use at least ${enoughEpochs} epochs.`);
      await expect(page.getByTestId('train-warnings-imgsz')).toHaveCount(0);
      const seconds = Number(await page.getByTestId('train-estimate').getAttribute('data-seconds'));
      await page.getByTestId('train-start').click();
      trainingId = (await page.getByTestId('train-progress').getAttribute('data-training-id'))!;
      const row = page.getByTestId(`train-row-${trainingId}`);
      await expect.poll(() => row.getAttribute('data-status'), { timeout: 60_000, intervals: [500] }).toMatch(/^(succeeded|failed|cancelled)$/);
      expect(await row.getAttribute('data-status')).toBe('succeeded');
      // The end is announced by the verdict, not a green "Training v1 finished."
      await expect(page.getByText('Training v1 finished, but learned nothing usable.')).toBeVisible();
      const t = await call<{ durationS: number }>('GET', `/api/models/${modelId}/trainings/${trainingId}`, undefined, await sessionToken(page));
      console.log(`learned-nothing: estimated ${seconds} s, took ${t.durationS} s (queued to end)`);
    });

    await test.step('/train: not a green "Succeeded" alone, but "learned nothing usable" and what would help', async () => {
      await expect(page.getByTestId(`train-row-verdict-${trainingId}`)).toHaveText('Learned nothing usable');
      await expect(page.getByTestId(`train-row-status-${trainingId}`)).not.toHaveClass(/ant-tag-success/);
      const verdict = page.getByTestId('train-verdict');
      await expect(verdict).toHaveAttribute('data-level', 'unusable');
      await expect(page.getByTestId('train-verdict-text')).toContainText(/^v1 finished, but its mAP50 is \d+\.\d % \(below 5\.0 %\): its predictions cannot be used\.$/);
      await expect(page.getByTestId('train-verdict-advice-epochs')).toContainText(`Use at least ${enoughEpochs} epochs`);
      // Both labels have fewer than 30 training boxes: each is named with its count.
      const labels = page.getByTestId('train-verdict-advice-labels');
      await expect(labels).toHaveCount(2);
      await expect(labels.first()).toContainText(/^“(scratch|dent)” has \d+ training examples\. Label at least 30\.$/);
      await snap(page, testInfo, 'verdict');
    });

    await test.step('/model says the same of v1', async () => {
      await page.goto('/model');
      await expect(page.getByTestId('model-page')).toHaveAttribute('data-version', 'v1');
      await expect(page.getByTestId('train-verdict')).toHaveAttribute('data-level', 'unusable');
      await expect(page.getByTestId('train-verdict-advice-epochs')).toContainText(`Use at least ${enoughEpochs} epochs`);
    });

    await test.step('/test on the test split finds nothing right: no "best F1 at confidence …, use it"', async () => {
      await page.goto('/test');
      await expect(page).toHaveURL(/\/test\/detection$/);
      await page.getByTestId('test-source-testSplit').click();
      await fillNumber(page, 'test-conf', 0.01);
      await page.getByTestId('test-run').click();
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', /^(succeeded|failed|cancelled)$/, { timeout: 60_000 });
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', 'succeeded');
      await expect(page.getByTestId('test-metrics')).toHaveAttribute('data-has-gt', 'true');
      await expect(page.getByTestId('test-metric-map50')).toContainText('0.0 %');
      await expect(page.getByTestId('test-suggested-conf')).toHaveCount(0);
      await expect(page.getByTestId('test-use-suggested')).toHaveCount(0);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
