import type { Page } from '@playwright/test';
import { call, createApprovedUser, createModel, uploadImages, type NewUser } from '../support/api.js';
import { expect, test } from '../support/fixtures.js';
import { drawJpeg, boxesOf } from '../support/images.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 /mark per model type, first-use guides and shortcut keys; §5 labels, unfinished drawing. A user draws
 * with the mouse on the real canvas (boxes, a rotated box, a polygon, an OCR box with its text), switches labels
 * with the keys 1–3, undoes and redoes, reloads and finds everything saved on the server.
 */

interface Geometry {
  kind: 'box' | 'rbox' | 'polygon';
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
  cx?: number;
  cy?: number;
  w?: number;
  h?: number;
  angle?: number;
  points?: [number, number][];
  text?: string;
}
interface Annotation {
  labelId: number;
  geometry: Geometry;
}

const stamp = Date.now().toString(36);
const token = (page: Page) => page.evaluate(() => localStorage.getItem('token') ?? '');

async function prepare(page: Page, tag: string, type: string, images = 3): Promise<{ account: NewUser; modelId: number; imageIds: number[] }> {
  const account = await createApprovedUser(tag);
  await signInAsUser(page, account);
  const t = await token(page);
  const model = await createModel(t, `${tag} ${stamp}`, type);
  const files = await Promise.all(
    Array.from({ length: images }, async (_, i) => ({ name: `${tag}-${i}.jpg`, data: await drawJpeg(i + 1, boxesOf(i + 1)) })),
  );
  const imageIds = await uploadImages(t, model.id, files);
  return { account, modelId: model.id, imageIds };
}

/** Open the model from the model list and go to its labeling step through the sidebar, as a user does. */
async function openMark(page: Page, modelId: number, segment: string): Promise<void> {
  await page.goto('/agentList');
  await page.getByTestId(`model-open-${modelId}`).click();
  await expect(page).toHaveURL(/\/gallery$/);
  await page.getByTestId('menu-mark').click();
  await expect(page).toHaveURL(new RegExp(`/mark/${segment}`));
  await canvasReady(page);
}

async function canvasReady(page: Page, shapes?: number): Promise<void> {
  const canvas = page.getByTestId('annotator-canvas');
  await expect(canvas).toHaveAttribute('data-ready', '1');
  if (shapes !== undefined) await expect(canvas).toHaveAttribute('data-shapes', String(shapes));
}

async function closeGuide(page: Page): Promise<void> {
  await expect(page.getByTestId('mark-guide')).toBeVisible();
  await page.locator('.ant-tour-close').click();
  await expect(page.getByTestId('mark-guide')).toBeHidden();
}

/** The page position of an image point, from the view transform the canvas publishes (scale, tx, ty). */
async function at(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const canvas = page.getByTestId('annotator-canvas');
  const [scale, tx, ty] = ((await canvas.getAttribute('data-view')) ?? '').split(',').map(Number);
  const box = await canvas.boundingBox();
  if (!box || !scale) throw new Error('the canvas has no size or view');
  return { x: box.x + x * scale + tx!, y: box.y + y * scale + ty! };
}

async function drag(page: Page, from: [number, number], to: [number, number]): Promise<void> {
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
  await page.mouse.move(b.x, b.y, { steps: 4 });
  await page.mouse.up();
}

async function click(page: Page, x: number, y: number): Promise<void> {
  const p = await at(page, x, y);
  await page.mouse.click(p.x, p.y);
}

async function createLabels(page: Page, names: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    await page.getByTestId('mark-label-new-name').fill(name);
    const created = page.waitForResponse((r) => r.request().method() === 'POST' && /\/labels$/.test(new URL(r.url()).pathname));
    await page.getByTestId('mark-label-add').click();
    const body = (await (await created).json()) as { code: number; message: string; data: { id: number } };
    expect(body.code, body.message).toBe(0);
    ids.push(body.data.id);
    // The label shows in the list and the field is free for the next name.
    await expect(page.getByTestId(`mark-label-${body.data.id}`)).toBeVisible();
    await expect(page.getByTestId('mark-label-new-name')).toHaveValue('');
  }
  return ids;
}

async function saved(page: Page): Promise<void> {
  await expect(page.getByTestId('mark-save-status')).toHaveAttribute('data-status', 'saved');
}

async function annotationsOf(page: Page, modelId: number, imageId: number): Promise<Annotation[]> {
  const data = await call<{ annotations: Annotation[] }>('GET', `/api/models/${modelId}/images/${imageId}/annotations`, undefined, await token(page));
  return data.annotations;
}

function near(actual: number | undefined, expected: number, tolerance = 2): void {
  expect(actual, `${actual} ≈ ${expected}`).toBeDefined();
  expect(Math.abs(actual! - expected), `${actual} ≈ ${expected}`).toBeLessThanOrEqual(tolerance);
}

test('detection: a box and a rotated box with the mouse, labels by keys 1–3, undo and redo, saved across a reload', async ({ user: page }) => {
  const { modelId, imageIds } = await prepare(page, 'mark-detect', 'DETECTION');
  // Newest first: the last uploaded image opens first.
  const first = imageIds[imageIds.length - 1]!;
  let labels: number[] = [];

  await test.step('the first-use guide opens once; drawing without a label asks for one', async () => {
    await openMark(page, modelId, 'detection');
    await closeGuide(page);
    await page.getByTestId('mark-tool-box').click();
    await drag(page, [20, 20], [60, 50]);
    await expect(page.getByText('Please select or create a label')).toBeVisible();
    await canvasReady(page, 0);
  });

  await test.step('create three labels; key 1 picks the first; draw a box', async () => {
    labels = await createLabels(page, ['scratch', 'dent', 'stain']);
    // Keys typed in the new-label field stay there; the shortcuts work once the focus has left it.
    await page.getByTestId('annotator-canvas').focus();
    await page.keyboard.press('1');
    await expect(page.getByTestId(`mark-label-${labels[0]}`)).toHaveAttribute('data-active', 'true');
    await drag(page, [20, 20], [60, 50]);
    await canvasReady(page, 1);
  });

  await test.step('key 2, then a rotated box: the first edge by dragging, the height by a click', async () => {
    await page.keyboard.press('2');
    await expect(page.getByTestId(`mark-label-${labels[1]}`)).toHaveAttribute('data-active', 'true');
    await page.getByTestId('mark-tool-rbox').click();
    await drag(page, [80, 30], [130, 40]);
    const h = await at(page, 126, 60);
    await page.mouse.move(h.x, h.y, { steps: 3 });
    await page.mouse.click(h.x, h.y);
    await canvasReady(page, 2);
    await saved(page);
  });

  await test.step('select the box, key 3 relabels it; undo and redo', async () => {
    await page.getByTestId('mark-tool-select').click();
    await click(page, 40, 35);
    await page.keyboard.press('3');
    await saved(page);
    const labelOfBox = async () => (await annotationsOf(page, modelId, first)).find((a) => a.geometry.kind === 'box')?.labelId;
    await expect.poll(labelOfBox).toBe(labels[2]);
    await page.getByTestId('mark-undo').click();
    await expect.poll(labelOfBox).toBe(labels[0]);
    await page.keyboard.press('Control+Shift+Z');
    await expect.poll(labelOfBox).toBe(labels[2]);
    await saved(page);
  });

  await test.step('after a reload both shapes are there, where they were drawn; the guide stays closed', async () => {
    await page.reload();
    await canvasReady(page, 2);
    await expect(page.getByTestId('mark-guide')).toBeHidden();
    const stored = await annotationsOf(page, modelId, first);
    const box = stored.find((a) => a.geometry.kind === 'box')!;
    expect(box.labelId).toBe(labels[2]);
    near(box.geometry.x1, 20);
    near(box.geometry.y1, 20);
    near(box.geometry.x2, 60);
    near(box.geometry.y2, 50);
    const rbox = stored.find((a) => a.geometry.kind === 'rbox')!;
    expect(rbox.labelId).toBe(labels[1]);
    // First edge (80,30)→(130,40): length √2600 ≈ 51, angle atan(10/50) ≈ 11.3° clockwise.
    near(rbox.geometry.w, Math.hypot(50, 10), 2);
    near(((rbox.geometry.angle! % 180) + 180) % 180, (Math.atan2(10, 50) * 180) / Math.PI, 2);
    expect(rbox.geometry.h!).toBeGreaterThan(10);
  });

  await test.step('the first image has no previous one; the next one is empty', async () => {
    await page.getByTestId('mark-prev').click();
    await expect(page.getByText('Already the first image')).toBeVisible();
    await page.getByTestId('mark-next').click();
    await canvasReady(page, 0);
    await expect(page.getByTestId('mark-position')).toContainText('2 / 3');
  });
});

test('segmentation: a polygon closed on its first point; leaving mid-drawing is refused', async ({ user: page }) => {
  const { modelId, imageIds } = await prepare(page, 'mark-segment', 'SEGMENTATION', 1);
  await openMark(page, modelId, 'segmentation');
  await closeGuide(page);
  const [label] = await createLabels(page, ['crack']);
  await page.getByTestId('annotator-canvas').focus();
  await page.keyboard.press('1');
  await page.getByTestId('mark-tool-polygon').click();
  for (const [x, y] of [[30, 30], [90, 25], [100, 80], [40, 90]] as const) await click(page, x, y);
  await page.getByTestId('menu-gallery').click();
  await expect(page.getByText('Drawing not finished')).toBeVisible();
  await expect(page).toHaveURL(/\/mark\/segmentation/);
  await click(page, 30, 30);
  await canvasReady(page, 1);
  await saved(page);
  await page.reload();
  await canvasReady(page, 1);
  const [polygon] = await annotationsOf(page, modelId, imageIds[0]!);
  expect(polygon!.labelId).toBe(label);
  expect(polygon!.geometry.kind).toBe('polygon');
  const points = polygon!.geometry.points!;
  expect(points).toHaveLength(4);
  near(points[2]![0], 100);
  near(points[2]![1], 80);
});

test('OCR: a rotated box with its text; a second tab saving an older version gets a conflict and reloads', async ({ user: page }) => {
  const { modelId, imageIds } = await prepare(page, 'mark-ocr', 'OCR', 1);
  await openMark(page, modelId, 'ocr');
  await closeGuide(page);
  await createLabels(page, ['serial']);
  await page.getByTestId('annotator-canvas').focus();
  await page.keyboard.press('1');

  // A second tab on the same image (opened from the first, so it shares the open project), before the first draws.
  const opened = page.context().waitForEvent('page');
  await page.evaluate(() => window.open(window.location.href, '_blank'));
  const second = await opened;
  await canvasReady(second, 0);

  await page.getByTestId('mark-tool-rbox').click();
  await drag(page, [20, 40], [120, 40]);
  await click(page, 120, 70);
  await canvasReady(page, 1);
  await page.getByTestId('mark-text-input').fill('LOT 42-A');
  await page.getByTestId('mark-text-input').press('Enter');
  await saved(page);
  await expect.poll(async () => (await annotationsOf(page, modelId, imageIds[0]!))[0]?.geometry.text).toBe('LOT 42-A');

  await second.keyboard.press('1');
  await second.getByTestId('mark-tool-box').click();
  await drag(second, [10, 10], [50, 30]);
  await expect(second.getByText('changed in another tab')).toBeVisible();
  // The second tab now shows what the first saved, and the server still holds only that.
  await canvasReady(second, 1);
  const stored = await annotationsOf(page, modelId, imageIds[0]!);
  expect(stored).toHaveLength(1);
  expect(stored[0]!.geometry.kind).toBe('rbox');
  await second.close();

  await page.reload();
  await canvasReady(page, 1);
  await page.getByTestId('mark-tool-select').click();
  await click(page, 70, 55);
  await expect(page.getByTestId('mark-text-input')).toHaveValue('LOT 42-A');
});

test('classification: a key sets the image class and opens the next image; 0 clears it', async ({ user: page }) => {
  const { modelId, imageIds } = await prepare(page, 'mark-classify', 'classification');
  const t = await token(page);
  const ok = await call<{ id: number }>('POST', `/api/models/${modelId}/labels`, { name: 'ok' }, t);
  const ng = await call<{ id: number }>('POST', `/api/models/${modelId}/labels`, { name: 'ng' }, t);
  await page.goto('/agentList');
  await page.getByTestId(`model-open-${modelId}`).click();
  await expect(page).toHaveURL(/\/gallery$/);
  await page.getByTestId('menu-mark').click();
  await expect(page).toHaveURL(/\/mark(\?|$)/);
  await expect(page.getByTestId('mark-page')).toHaveAttribute('data-kind', 'classification');
  await closeGuide(page);

  const classOf = async (imageId: number) =>
    (await call<{ items: { id: number; classLabelId: number | null }[] }>('GET', `/api/models/${modelId}/images?pageSize=50`, undefined, t)).items.find(
      (i) => i.id === imageId,
    )?.classLabelId;
  // Newest first: imageIds[2], [1], [0].
  await expect(page.getByTestId('mark-position')).toContainText('1 / 3');
  await page.keyboard.press('1');
  await expect(page.getByTestId('mark-position')).toContainText('2 / 3');
  await page.keyboard.press('2');
  await expect(page.getByTestId('mark-position')).toContainText('3 / 3');
  await page.getByTestId(`mark-class-${ng.id}`).click();
  await expect(page.getByText('Already the last image')).toBeVisible();
  await expect.poll(() => classOf(imageIds[2]!)).toBe(ok.id);
  await expect.poll(() => classOf(imageIds[1]!)).toBe(ng.id);
  await expect.poll(() => classOf(imageIds[0]!)).toBe(ng.id);

  await page.getByTestId('mark-prev').click();
  await expect(page.getByTestId('mark-current-class')).toHaveAttribute('data-label-id', String(ng.id));
  await page.keyboard.press('0');
  await expect(page.getByTestId('mark-current-class')).toHaveAttribute('data-label-id', '');
  await expect.poll(() => classOf(imageIds[1]!)).toBeNull();
});
