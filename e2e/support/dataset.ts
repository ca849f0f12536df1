import { expect, type Page } from '@playwright/test';
import { call, uploadImages } from './api.js';
import { boxesOf, drawJpeg, LABELS } from './images.js';

/**
 * What a user does to get a labelled, split detection dataset, by the gallery's test ids: create the model,
 * upload images with an annotation ZIP, split them. Shared by the dataset spec and the specs that start from a
 * dataset (delivery), so a renamed id or a changed wizard step is fixed once.
 */

export interface ModelRef {
  id: number;
}

/** The box of an Ant Design modal whose test id sits on its (sizeless) root element. */
export function modal(page: Page, testId: string) {
  return page.getByTestId(testId).locator('.ant-modal').first();
}

/** Pick an option of an Ant Design select found by its test id. */
export async function choose(page: Page, testId: string, option: string): Promise<void> {
  const escaped = option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page.getByTestId(testId).click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: new RegExp(`^${escaped}$`) })
    .first()
    .click();
  await expect(page.getByTestId(testId)).toContainText(option);
}

/** Fill an Ant Design InputNumber whose test id may sit on the input or on its wrapper. */
export async function fillNumber(page: Page, testId: string, value: number): Promise<void> {
  const el = page.getByTestId(testId);
  const input = (await el.evaluate((n) => n.tagName)) === 'INPUT' ? el : el.locator('input');
  await input.fill(String(value));
}

/** Create a detection model through the dialog on /agentList; the new model opens on its gallery. */
export async function createDetectionModel(page: Page, name: string): Promise<ModelRef> {
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

/**
 * The "images + annotation ZIP" wizard from the gallery: pick, send, then the ZIP, ending on the summary
 * (left open: the caller reads it, then closes it with `closeUpload`).
 */
export async function uploadWithAnnotations(page: Page, files: string[], zip: string, expectAccepted: number): Promise<void> {
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

export async function closeUpload(page: Page): Promise<void> {
  await page.getByTestId('upload-close').click();
  await expect(modal(page, 'upload-wizard')).toBeHidden();
}

/** The gallery's auto split with its confirmation tick; without the tick the split does not run. */
export async function autoSplit(page: Page, shares: { train: number; valid: number; test: number }): Promise<void> {
  await page.getByTestId('auto-split-open').click();
  await expect(modal(page, 'auto-split-dialog')).toBeVisible();
  await fillNumber(page, 'auto-split-train', shares.train);
  await fillNumber(page, 'auto-split-valid', shares.valid);
  await fillNumber(page, 'auto-split-test', shares.test);
  await expect(page.getByTestId('auto-split-run')).toBeDisabled();
  await page.getByTestId('auto-split-confirm').click();
  await expect(page.getByTestId('auto-split-run')).toBeEnabled();
  await page.getByTestId('auto-split-run').click();
  await expect(modal(page, 'auto-split-dialog')).toBeHidden();
}

/** How many images the gallery shows with its split filter on `split` (Train, Validation, Test); at least one. */
export async function shownInSplit(page: Page, split: string, total: number): Promise<number> {
  await choose(page, 'gallery-split-filter', split);
  const count = page.getByTestId('gallery-count');
  // until the new filter's first page arrives, the gallery shows the previous filter's count, marked busy
  await expect(count).toHaveAttribute('aria-busy', 'false');
  await expect(count).toContainText(new RegExp(`^\\d+ shown of ${total} images$`));
  await expect(count).not.toContainText(/^0 shown/);
  return Number((await count.textContent())!.split(' ')[0]);
}

/** The session token the app keeps, for reading what the page shows through the same API. */
export async function sessionToken(page: Page): Promise<string> {
  const token = await page.evaluate(() => localStorage.getItem('token'));
  expect(token, 'the app keeps a session token after sign-in').toBeTruthy();
  return token!;
}

/**
 * Labels a detection model through the API (the labeling studio has its own spec): `count` drawn images with their
 * boxes, the first `train` in the training split and the rest in validation. Returns the image ids.
 */
export async function labeledDrawnImages(token: string, modelId: number, count: number, train: number): Promise<number[]> {
  const images = await uploadImages(token, modelId, await Promise.all(Array.from({ length: count }, async (_, i) => ({ name: `part_${i}.jpg`, data: await drawJpeg(i, boxesOf(i)) }))));
  const labels: Record<string, number> = {};
  for (const name of LABELS) labels[name] = (await call<{ id: number }>('POST', `/api/models/${modelId}/labels`, { name }, token)).id;
  for (const [i, id] of images.entries()) {
    const annotations = boxesOf(i).map((b) => ({ labelId: labels[b.label]!, geometry: { kind: 'box', x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 } }));
    await call('PUT', `/api/models/${modelId}/images/${id}/annotations`, { baseVersion: 0, annotations }, token);
  }
  for (const [split, ids] of [['train', images.slice(0, train)], ['valid', images.slice(train)]] as const) await call('POST', `/api/models/${modelId}/images/split`, { ids, split }, token);
  return images;
}
