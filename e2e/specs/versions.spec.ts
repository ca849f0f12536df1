import type { Page } from '@playwright/test';
import { call, createApprovedUser, createModel } from '../support/api.js';
import { labeledDrawnImages, sessionToken } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { LABELS } from '../support/images.js';
import { signInAsUser } from '../support/ui.js';

/**
 * Issue 31 item 4 and the versions-table trap of item 6. Two tiny trainings of a detection model (drawn images
 * labeled through the API; the labeler has its own spec), then as a user: /modelManagement lists them, makes the
 * older one the default, writes a note, ticks both to see their metrics side by side and opens /train2, which
 * overlays their curves and lists the parameters and per-class figures that differ; back on /modelManagement the
 * default version is deleted and the latest takes over. /creatModel2 explains every model type with an example
 * image and creates a model. The /train versions table fits a 1440 px window without scrolling sideways.
 */

const COUNT = 16;
/** Pico at 64 px, one image per class of work: one and two epochs, a few seconds each. */
const BASE = { model: 'p', imgsz: 64, batch: 4, mosaic: 0, warmup_epochs: 0, workers: 0, amp: false, procs: 1 };
const V1 = { ...BASE, epochs: 1, seed: 1 };
const V2 = { ...BASE, epochs: 2, seed: 2 };

interface Training {
  id: number;
  version: string;
  status: string;
}

async function trainAndWait(token: string, modelId: number, params: Record<string, unknown>): Promise<Training> {
  const started = await call<Training>('POST', `/api/models/${modelId}/trainings`, { params }, token);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const t = await call<Training>('GET', `/api/models/${modelId}/trainings/${started.id}`, undefined, token);
    if (!['queued', 'preparing', 'training'].includes(t.status)) {
      expect(t.status).toBe('succeeded');
      return t;
    }
    if (Date.now() > deadline) throw new Error(`training ${started.id} still ${t.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** How far the element's content reaches past its box, in px (0: it fits). */
const overflowOf = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => el.scrollWidth - el.clientWidth);

test('versions: default version, note, metrics side by side, /train2 comparison, delete; /creatModel2; the versions table fits 1440 px', async ({ user: page }, testInfo) => {
  test.setTimeout(110_000);
  const account = await createApprovedUser('versions');
  let modelId = 0;
  let v1: Training;
  let v2: Training;

  await test.step('a detection model with 16 labeled images and two short trainings (v1: 1 epoch, v2: 2 epochs)', async () => {
    await signInAsUser(page, account);
    const token = await sessionToken(page);
    modelId = (await createModel(token, `Versions ${Date.now().toString(36)}`, 'DETECTION')).id;
    await labeledDrawnImages(token, modelId, COUNT, 12);
    v1 = await trainAndWait(token, modelId, V1);
    v2 = await trainAndWait(token, modelId, V2);
    await page.goto('/agentList');
    await page.getByTestId(`model-open-${modelId}`).click();
    await expect(page).toHaveURL(/\/gallery$/);
  });

  await test.step('/modelManagement, reached from the /train versions table: both versions listed; without a default the latest is in use', async () => {
    await page.goto('/train');
    await expect(page.getByTestId('train-compare-versions')).toBeVisible();
    await page.getByTestId('train-manage-versions').click();
    await expect(page).toHaveURL(/\/modelManagement$/);
    await expect(page.getByTestId('versions-table')).toBeVisible();
    await expect(page.getByTestId(`version-row-${v2.id}`)).toHaveAttribute('data-version', 'v2');
    await expect(page.getByTestId(`version-row-${v1.id}`)).toHaveAttribute('data-version', 'v1');
    await expect(page.getByTestId(`version-status-${v1.id}`)).toHaveText('Succeeded');
    await expect(page.getByTestId('versions-in-use')).toHaveAttribute('data-training-id', String(v2.id));
    await expect(page.getByTestId('versions-in-use')).toContainText('v2, the latest succeeded version');
    await expect(page.getByTestId(`version-in-use-${v2.id}`)).toBeVisible();
  });

  await test.step('v1 becomes the default version; a note is written on it', async () => {
    await page.getByTestId(`version-make-default-${v1.id}`).click();
    await expect(page.getByTestId(`version-default-${v1.id}`)).toHaveText('Default');
    await expect(page.getByTestId('versions-in-use')).toContainText('Tests and exports use v1 (your default version)');
    await expect(page.getByTestId(`version-make-default-${v2.id}`)).toBeEnabled();

    await page.getByTestId(`version-note-edit-${v1.id}`).click();
    const note = page.getByTestId(`version-note-input-${v1.id}`);
    await note.fill('first try, one epoch');
    await page.getByTestId(`version-note-save-${v1.id}`).click();
    await expect(page.getByTestId(`version-note-${v1.id}`)).toHaveText('first try, one epoch');
    // What a test without a chosen version now uses, as the server says.
    const list = await call<{ defaultTrainingId: number; effectiveTrainingId: number }>('GET', `/api/models/${modelId}/versions`, undefined, await sessionToken(page));
    expect(list).toMatchObject({ defaultTrainingId: v1.id, effectiveTrainingId: v1.id });
  });

  await test.step('/test starts from the default version v1, not the latest', async () => {
    await page.goto('/test');
    await expect(page.getByTestId('test-version')).toContainText('v1');
    await expect(page.getByTestId('test-version')).not.toContainText('v2');
    await page.goto('/modelManagement');
  });

  await test.step('both ticked: their metrics side by side, then the comparison of the two trainings', async () => {
    await page.getByTestId(`version-pick-${v1.id}`).check();
    await page.getByTestId(`version-pick-${v2.id}`).check();
    const side = page.getByTestId('versions-side-by-side');
    await expect(side).toHaveAttribute('data-versions', 'v1 v2');
    await expect(page.getByTestId(`side-mAP50-${v1.id}`)).toHaveText(/%$/);
    await expect(page.getByTestId(`side-mAP50-${v2.id}`)).toHaveText(/%$/);
    await expect(page.getByTestId(`side-precision-${v2.id}`)).toBeVisible();
    await snap(page, testInfo, 'model-management');
    await page.getByTestId('versions-compare-curves').click();
    await expect(page).toHaveURL(new RegExp(`/train2\\?a=${v1.id}&b=${v2.id}$`));
  });

  await test.step('/train2: curves of both on one chart, only the parameters that differ, per-class figures', async () => {
    await expect(page.getByTestId('compare-result')).toHaveAttribute('data-a', String(v1.id));
    await expect(page.getByTestId('compare-curve-loss')).toHaveAttribute('data-series', /v1\|loss.*v2\|loss/);
    await expect(page.getByTestId('compare-curve-loss')).toHaveAttribute('data-points', '3');
    await expect(page.getByTestId('compare-curve-metrics')).toHaveAttribute('data-series', 'v1|mAP50 v2|mAP50');
    await expect(page.getByTestId('compare-params')).toHaveAttribute('data-count', '2');
    await expect(page.getByTestId('param-a-epochs')).toHaveText('1');
    await expect(page.getByTestId('param-b-epochs')).toHaveText('2');
    await expect(page.getByTestId('param-a-seed')).toHaveText('1');
    await expect(page.getByTestId('param-b-seed')).toHaveText('2');
    await expect(page.getByTestId('param-row-imgsz')).toHaveCount(0);
    const classes = page.getByTestId('compare-classes');
    for (const name of LABELS) await expect(classes).toContainText(name);
    await expect(page.getByTestId(`class-delta-${LABELS[0]}-AP50`)).toBeVisible();
    await snap(page, testInfo, 'train2');
    // Swapping one side: the address and the comparison follow.
    await page.getByTestId('compare-a').click();
    await page.locator('.ant-select-item-option').filter({ hasText: 'v2' }).click();
    await expect(page.getByTestId('compare-pick-two')).toBeVisible();
  });

  await test.step('deleting the default version: v1 goes, v2 is in use again', async () => {
    await page.goto('/modelManagement');
    await page.getByTestId(`version-delete-${v1.id}`).click();
    await expect(page.locator('.ant-popconfirm')).toContainText('It is your default version');
    await page.getByTestId(`version-delete-ok-${v1.id}`).click();
    await expect(page.getByTestId(`version-row-${v1.id}`)).toHaveCount(0);
    await expect(page.getByTestId('versions-in-use')).toHaveAttribute('data-training-id', String(v2.id));
    await expect(page.getByTestId('versions-in-use')).toContainText('v2, the latest succeeded version');
    // The last version with a model: the confirmation says what deleting it means.
    await page.getByTestId(`version-delete-${v2.id}`).click();
    await expect(page.locator('.ant-popconfirm')).toContainText('only version with a trained model');
    await page.locator('.ant-popconfirm').getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId(`version-row-${v2.id}`)).toBeVisible();
  });

  await test.step('the /train versions table and the /modelManagement table fit a 1440 px window; narrower, only the table scrolls', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/train');
    await expect(page.getByTestId(`train-row-${v2.id}`)).toBeVisible();
    expect(await overflowOf(page, '[data-testid="train-versions"] .ant-table-content, [data-testid="train-versions"] .ant-table-body')).toBeLessThanOrEqual(0);
    await page.goto('/modelManagement');
    await expect(page.getByTestId(`version-row-${v2.id}`)).toBeVisible();
    expect(await overflowOf(page, '[data-testid="versions-table"] .ant-table-content, [data-testid="versions-table"] .ant-table-body')).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1024, height: 800 });
    await page.goto('/train');
    await expect(page.getByTestId(`train-row-${v2.id}`)).toBeVisible();
    // The page itself never scrolls sideways; the table may.
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await test.step('/creatModel2: an explanation and an example image for each model type; creating opens the new model', async () => {
    await page.goto('/creatModel2');
    await expect(page.getByTestId('create2-page')).toBeVisible();
    for (const type of ['OCR', 'DETECTION', 'SEGMENTATION', 'classification', 'MEASURE', 'FPG', 'RPG']) {
      await expect(page.getByTestId(`model-example-${type}`).locator('svg')).toBeVisible();
      await expect(page.getByTestId(`create2-explain-${type}`)).not.toBeEmpty();
    }
    await expect(page.getByTestId('create2-explain-classification')).toContainText('OK or NG');
    // Without a type the form says what is missing.
    await page.getByTestId('create2-name').fill('Gauges');
    await page.getByTestId('create2-submit').click();
    await expect(page.getByText('Choose a model type.')).toBeVisible();
    await page.getByTestId('create2-type-SEGMENTATION').click();
    await expect(page.getByTestId('create2-type-SEGMENTATION')).toHaveAttribute('aria-checked', 'true');
    await snap(page, testInfo, 'creat-model-2');
    await page.getByTestId('create2-submit').click();
    await expect(page).toHaveURL(/\/gallery/);
    const models = await call<{ items: { name: string; type: string }[] }>('GET', '/api/models?name=Gauges', undefined, await sessionToken(page));
    expect(models.items).toEqual([expect.objectContaining({ name: 'Gauges', type: 'SEGMENTATION' })]);
  });
});
