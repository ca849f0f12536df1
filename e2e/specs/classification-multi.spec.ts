import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { call, createApprovedUser, createModel, uploadImages } from '../support/api.js';
import { expect, test } from '../support/fixtures.js';
import { shapePng } from '../support/shapes.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 /mark classification with several classes per image (issue 7 item 1). A user switches the model to
 * multi-label on /mark, toggles classes with the keys (1–9 on and off, Enter to the next image), confirms an
 * image as "none of these", sees the switch back to one class refused while an image holds two (the image
 * named), leaves one class and switches back: the classes become single-label classes. Then a multi-label model
 * trained for two epochs is tested on /test, whose cards show the predicted classes against the true ones.
 */

const stamp = Date.now().toString(36);
const token = (page: Page) => page.evaluate(() => localStorage.getItem('token') ?? '');

interface Listed {
  id: number;
  name: string;
  labeled: boolean;
  classLabelId: number | null;
  classLabelIds?: number[];
  noClass?: boolean;
}

test('multi-label classification: keys toggle classes, none of these, switching back refused then allowed', async ({ user: page }) => {
  test.setTimeout(110_000);
  const account = await createApprovedUser('multi');
  await signInAsUser(page, account);
  const t = await token(page);
  const model = await createModel(t, `Multi ${stamp}`, 'classification');
  const files = await Promise.all(Array.from({ length: 3 }, async (_, i) => ({ name: `multi-${i}.png`, data: await shapePng(i) })));
  const [first, second, third] = (await uploadImages(t, model.id, files)) as [number, number, number];
  const disc = await call<{ id: number }>('POST', `/api/models/${model.id}/labels`, { name: 'disc' }, t);
  const square = await call<{ id: number }>('POST', `/api/models/${model.id}/labels`, { name: 'square' }, t);
  const listed = async () =>
    new Map((await call<{ items: Listed[] }>('GET', `/api/models/${model.id}/images?pageSize=50`, undefined, t)).items.map((i) => [i.id, i]));

  await test.step('/mark: the switch turns "several classes per image" on', async () => {
    await page.goto('/agentList');
    await page.getByTestId(`model-open-${model.id}`).click();
    await expect(page).toHaveURL(/\/gallery$/);
    await page.getByTestId('menu-mark').click();
    await expect(page).toHaveURL(/\/mark(\?|$)/);
    await expect(page.getByTestId('mark-guide')).toBeVisible();
    await page.locator('.ant-tour-close').click();
    await expect(page.getByTestId('mark-guide')).toBeHidden();
    const toggle = page.getByTestId('mark-multi-label');
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'true');
    await expect(page.getByTestId('mark-page')).toHaveAttribute('data-multi-label', 'true');
    // The images are read again with their sets; keys wait for the open one (as after any image switch).
    await expect(page.getByTestId('mark-page')).toHaveAttribute('data-ready', 'true');
    const m = await call<{ multiLabel: boolean }>('GET', `/api/models/${model.id}`, undefined, t);
    expect(m.multiLabel).toBe(true);
  });

  await test.step('keys: 1 and 2 give the newest image both classes, Enter moves on, N confirms none, 1 then 0 clears', async () => {
    const current = page.getByTestId('mark-current-class');
    // Newest first: third, second, first.
    await expect(page.getByTestId('mark-position')).toContainText('1 / 3');
    await page.keyboard.press('1');
    await page.keyboard.press('2');
    await expect(current).toHaveAttribute('data-label-ids', [disc.id, square.id].sort((a, b) => a - b).join(','));
    await expect(page.getByTestId('mark-position')).toContainText('1 / 3');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('mark-position')).toContainText('2 / 3');
    await page.keyboard.press('n');
    await expect(current).toHaveAttribute('data-none', 'true');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('mark-position')).toContainText('3 / 3');
    await page.getByTestId(`mark-class-${square.id}`).click();
    await page.keyboard.press('0');
    await expect(current).toHaveAttribute('data-label-ids', '');
    await expect(page.getByTestId('mark-save-status')).toHaveAttribute('data-status', 'saved');

    await expect.poll(async () => (await listed()).get(third)?.classLabelIds).toEqual([disc.id, square.id].sort((a, b) => a - b));
    const now = await listed();
    expect([now.get(second)!.classLabelIds, now.get(second)!.noClass, now.get(second)!.labeled]).toEqual([[], true, true]);
    expect([now.get(first)!.classLabelIds, now.get(first)!.labeled]).toEqual([[], false]);
  });

  await test.step('one class per image is refused while the newest image holds two; with one left it is allowed', async () => {
    const toggle = page.getByTestId('mark-multi-label');
    await toggle.click();
    await expect(page.getByText(/Images with more than one class: multi-2\.png/)).toBeVisible();
    await expect(toggle).toHaveAttribute('aria-checked', 'true');

    // Back to the newest image and take the disc off.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByTestId('mark-position')).toContainText('1 / 3');
    await page.getByTestId(`mark-class-${disc.id}`).click();
    await expect(page.getByTestId('mark-current-class')).toHaveAttribute('data-label-ids', String(square.id));
    await expect(page.getByTestId('mark-save-status')).toHaveAttribute('data-status', 'saved');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-checked', 'false');
    await expect(page.getByTestId('mark-page')).toHaveAttribute('data-multi-label', 'false');
    // The single-label panel shows the class the set held.
    await expect(page.getByTestId('mark-current-class')).toHaveAttribute('data-label-id', String(square.id));
    const now = await listed();
    expect(now.get(third)!.classLabelId).toBe(square.id);
    // Single-label has no negatives: the confirmed none is unlabeled now.
    expect([now.get(second)!.classLabelId, now.get(second)!.labeled]).toEqual([null, false]);
  });
});

const NAMES = ['disc', 'square'] as const;
/** Image i shows nothing (i % 4 = 0), a bright disc on the left (1), a blue square on the right (2) or both (3). */
const shapesOf = (i: number) => NAMES.filter((_, k) => ((i % 4) >> k) & 1);

function twoShapes(i: number): Promise<Buffer> {
  const size = 64;
  const px = Buffer.alloc(size * size * 3);
  let s = (i + 1) * 2654435761 + 11;
  for (let p = 0; p < px.length; p++) {
    s = (s * 1103515245 + 12345) >>> 0;
    px[p] = 40 + ((s >>> 16) % 15);
  }
  const shapes = shapesOf(i);
  const dy = (i * 7) % 30;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (shapes.includes('disc') && (x - 16) ** 2 + (y - 16 - dy) ** 2 <= 100) px.set([240, 240, 240], (y * size + x) * 3);
      if (shapes.includes('square') && x >= 40 && x < 58 && y >= 8 + dy && y < 26 + dy) px.set([130, 130, 200], (y * size + x) * 3);
    }
  }
  return sharp(px, { raw: { width: size, height: size, channels: 3 } }).png().toBuffer();
}

interface SetResult {
  multiLabel?: boolean;
  labelIds?: number[];
  truthLabelIds?: number[] | null;
  correct: boolean | null;
}

test('multi-label classification: a short training, /test cards with the predicted classes against the true ones', async ({ user: page }) => {
  test.setTimeout(110_000);
  const account = await createApprovedUser('multitrain');
  await signInAsUser(page, account);
  const t = await token(page);
  const model = await createModel(t, `Multi train ${stamp}`, 'classification');
  const count = 24;
  const files = await Promise.all(Array.from({ length: count }, async (_, i) => ({ name: `two-${i}.png`, data: await twoShapes(i) })));
  const ids = await uploadImages(t, model.id, files);
  const label: Record<string, number> = {};
  for (const name of NAMES) label[name] = (await call<{ id: number }>('POST', `/api/models/${model.id}/labels`, { name }, t)).id;
  await call('PUT', `/api/models/${model.id}/classification-mode`, { multiLabel: true }, t);
  for (const [i, id] of ids.entries()) {
    const set = shapesOf(i).map((n) => label[n]!);
    await call('PUT', `/api/models/${model.id}/images/${id}/classes`, { labelIds: set, none: set.length === 0 }, t);
  }
  for (const [split, from, to] of [['train', 0, 16], ['valid', 16, 20], ['test', 20, 24]] as const) {
    await call('POST', `/api/models/${model.id}/images/split`, { ids: ids.slice(from, to), split }, t);
  }
  const params = { model: 'p', imgsz: 64, epochs: 2, batch: 8, warmup_epochs: 0, seed: 3, fliplr: 0, hsv_h: 0, hsv_s: 0, hsv_v: 0 };
  const training = await call<{ id: number }>('POST', `/api/models/${model.id}/trainings`, { params }, t);
  await expect
    .poll(async () => (await call<{ status: string }>('GET', `/api/models/${model.id}/trainings/${training.id}`, undefined, t)).status, { timeout: 60_000, intervals: [1000] })
    .toMatch(/^(succeeded|failed|cancelled)$/);
  const trained = await call<{ status: string; summary: Record<string, unknown> | null }>('GET', `/api/models/${model.id}/trainings/${training.id}`, undefined, t);
  expect(trained.status).toBe('succeeded');
  expect(trained.summary).toMatchObject({ multi_label: true });

  await page.goto('/agentList');
  await page.getByTestId(`model-open-${model.id}`).click();
  await expect(page).toHaveURL(/\/gallery$/);
  await page.getByTestId('menu-test').click();
  await expect(page).toHaveURL(/\/test$/);
  await page.getByTestId('test-source-testSplit').click();
  const started = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/models/${model.id}/tests`);
  await page.getByTestId('test-run').click();
  const body = (await (await started).json()) as { code: number; message: string; data: { id: number } };
  expect(body.code, body.message).toBe(0);
  await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', /^(succeeded|failed|cancelled)$/, { timeout: 60_000 });
  await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('test-results')).toHaveAttribute('data-total', '4');

  const images = (await call<{ items: { imageId: number; classification: SetResult | null }[] }>('GET', `/api/models/${model.id}/tests/${body.data.id}/images?pageSize=50`, undefined, t)).items;
  expect(images).toHaveLength(4);
  for (const img of images) {
    const c = img.classification!;
    expect(c.multiLabel).toBe(true);
    const truth = shapesOf(ids.indexOf(img.imageId)).map((n) => label[n]!).sort((a, b) => a - b);
    expect(c.truthLabelIds).toEqual(truth);
    const line = page.getByTestId(`test-class-${img.imageId}`);
    await expect(line).toHaveAttribute('data-predicted', c.labelIds!.join(','));
    await expect(line).toHaveAttribute('data-truth', truth.join(','));
    await expect(line).toHaveAttribute('data-verdict', c.correct ? 'right' : 'wrong');
  }
  console.log(`multi-label: ${images.filter((i) => i.classification!.correct).length}/4 test images exactly right`);
});
