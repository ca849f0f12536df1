import type { Page } from '@playwright/test';
import { call, createApprovedUser, createModel, uploadImages } from '../support/api.js';
import { expect, test } from '../support/fixtures.js';
import { shapePng } from '../support/shapes.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 /mark classification with several classes per image (issue 7 item 1). A user switches the model to
 * multi-label on /mark, toggles classes with the keys (1–9 on and off, Enter to the next image), confirms an
 * image as "none of these", sees the switch back to one class refused while an image holds two (the image
 * named), leaves one class and switches back: the classes become single-label classes.
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
