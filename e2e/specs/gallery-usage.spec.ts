import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { call, createApprovedUser } from '../support/api.js';
import { closeUpload, createDetectionModel, sessionToken, uploadWithAnnotations } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { HEIGHT, WIDTH, drawImages, writeVocZip, type DrawnImage } from '../support/images.js';
import { signInAsUser } from '../support/ui.js';

/**
 * Issue 31 item 5 and three traps of item 6, as a new user meets them: the labeler's empty state is readable on
 * its dark stage; after a VOC upload the gallery's thumbnails draw their boxes in the label colours; one click
 * previews an image large with its boxes; the hint says a double click opens the labeler, and it does, with the
 * first label chosen so the first box drawn is kept; /usage then shows a (tiny) training that ran.
 */

const COUNT = 6;
const NAME = `Gallery labels ${Date.now().toString(36)}`;

interface Label {
  id: number;
  name: string;
  color: string;
}

/** WCAG contrast ratio of two CSS rgb()/rgba() colours (the text's alpha laid over the background). */
function contrast(text: string, background: string): number {
  const parse = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
  const [br, bg, bb] = parse(background);
  const [tr, tg, tb, ta = 1] = parse(text);
  const mix = [tr! * ta + br! * (1 - ta), tg! * ta + bg! * (1 - ta), tb! * ta + bb! * (1 - ta)];
  const lum = (rgb: number[]) => {
    const [r, g, b] = rgb.map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [hi, lo] = [lum(mix), lum([br!, bg!, bb!])].sort((a, b) => b - a);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** The text colour of an element and the first opaque background behind it. */
async function colours(el: Locator): Promise<{ text: string; background: string }> {
  return el.evaluate((node) => {
    const text = getComputedStyle(node).color;
    let n: Element | null = node;
    while (n) {
      const bg = getComputedStyle(n).backgroundColor;
      if (bg && bg !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(bg)) return { text, background: bg };
      n = n.parentElement;
    }
    return { text, background: 'rgb(255, 255, 255)' };
  });
}

/** The page rectangle where an image point lands in an `object-fit: contain` box of the given rectangle. */
function place(box: { x: number; y: number; width: number; height: number }, x: number, y: number) {
  const scale = Math.min(box.width / WIDTH, box.height / HEIGHT);
  return { x: box.x + (box.width - WIDTH * scale) / 2 + x * scale, y: box.y + (box.height - HEIGHT * scale) / 2 + y * scale, scale };
}

/** The page position of an image point on the labeler's canvas, from the view transform it publishes. */
async function onCanvas(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const canvas = page.getByTestId('annotator-canvas');
  const [scale, tx, ty] = ((await canvas.getAttribute('data-view')) ?? '').split(',').map(Number);
  const box = await canvas.boundingBox();
  if (!box || !scale) throw new Error('the canvas has no size or view');
  return { x: box.x + x * scale + tx!, y: box.y + y * scale + ty! };
}

test('gallery thumbnails draw their labels, preview, the labeler opens ready to draw, and /usage shows the training', async ({ user: page }, testInfo) => {
  test.setTimeout(110_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-gallery-usage-'));
  try {
    const images: DrawnImage[] = await drawImages(dir, COUNT);
    const zip = path.join(dir, 'voc.zip');
    await writeVocZip(zip, images);
    const account = await createApprovedUser('gallery-usage');
    let modelId = 0;

    await test.step('a new model has no images: the labeler says so in readable text on its dark stage', async () => {
      await signInAsUser(page, account);
      modelId = (await createDetectionModel(page, NAME)).id;
      await page.getByTestId('menu-mark').click();
      await expect(page).toHaveURL(/\/mark\/detection/);
      // A first visit shows the labeler's guide; closed once, it stays closed.
      await expect(page.getByTestId('mark-guide')).toBeVisible();
      await page.locator('.ant-tour-close').click();
      await expect(page.getByTestId('mark-guide')).toBeHidden();
      const empty = page.getByTestId('mark-empty');
      await expect(empty).toBeVisible();
      const words = empty.locator('.ant-empty-description');
      await expect(words).toContainText('no images yet');
      const { text, background } = await colours(words);
      expect(contrast(text, background), `${text} on ${background}`).toBeGreaterThanOrEqual(4.5);
      await page.getByTestId('menu-gallery').click();
      await expect(page).toHaveURL(/\/gallery$/);
    });

    const labels: Label[] = [];
    const cardOf = (name: string) => page.locator(`[data-testid^="image-card-"][data-name="${name}"]`);
    const idOf = async (name: string) => Number(((await cardOf(name).getAttribute('data-testid')) ?? '').replace('image-card-', ''));

    await test.step('upload images with a VOC ZIP: each thumbnail draws its boxes where they are, in the label colours', async () => {
      await uploadWithAnnotations(page, images.map((i) => i.file), zip, COUNT);
      await closeUpload(page);
      await expect(page.getByTestId('gallery-hint')).toContainText('double-click it to open it in the labeler');
      labels.push(...(await call<Label[]>('GET', `/api/models/${modelId}/labels`, undefined, await sessionToken(page))));
      const colorOf = new Map(labels.map((l) => [l.name, l.color]));
      for (const img of images) {
        const id = await idOf(img.name);
        const svg = page.getByTestId(`image-shapes-${id}`);
        await expect(svg.locator('polygon')).toHaveCount(img.boxes.length);
        const strokes = await svg.locator('polygon').evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
        expect(strokes.sort()).toEqual(img.boxes.map((b) => colorOf.get(b.label)).sort());
      }
      // Where the first image's boxes land on its thumbnail: over the drawn rectangles, scaled to the thumbnail.
      const first = images[0]!;
      const svgBox = (await page.getByTestId(`image-shapes-${await idOf(first.name)}`).boundingBox())!;
      const rects = await page
        .getByTestId(`image-shapes-${await idOf(first.name)}`)
        .locator('polygon')
        .evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, right: r.right, bottom: r.bottom })));
      for (const b of first.boxes) {
        const tl = place(svgBox, b.x1, b.y1);
        const br = place(svgBox, b.x2, b.y2);
        const tol = 2 * tl.scale + 2;
        const hit = rects.find((r) => Math.abs(r.x - tl.x) <= tol && Math.abs(r.y - tl.y) <= tol && Math.abs(r.right - br.x) <= tol && Math.abs(r.bottom - br.y) <= tol);
        expect(hit, `${first.name}: box ${JSON.stringify(b)} drawn at ${JSON.stringify(rects)} (thumbnail ${JSON.stringify(svgBox)})`).toBeTruthy();
      }
      await snap(page, testInfo, 'gallery-thumbnails');
    });

    const target = images.find((i) => i.boxes.length === 2) ?? images[0]!;

    await test.step('one click previews the image large with its boxes and labels; close it', async () => {
      const id = await idOf(target.name);
      await cardOf(target.name).locator('img').click();
      const preview = page.getByTestId('image-preview');
      await expect(preview).toBeVisible();
      await expect(preview).toHaveAttribute('data-image', String(id));
      await expect(page.getByTestId('image-preview-shapes').locator('polygon')).toHaveCount(target.boxes.length);
      for (const b of target.boxes) await expect(page.getByTestId('image-preview-legend')).toContainText(b.label);
      const big = (await page.getByTestId('image-preview-shapes').boundingBox())!;
      expect(big.height).toBeGreaterThan(300);
      await snap(page, testInfo, 'gallery-preview');
      await page.getByTestId('image-preview-close').click();
      await expect(preview).toBeHidden();
    });

    await test.step('a double click opens the labeler on that image with the first label chosen; a box drawn at once is kept', async () => {
      const id = await idOf(target.name);
      await cardOf(target.name).locator('img').dblclick();
      await expect(page).toHaveURL(new RegExp(`/mark/detection\\?imageId=${id}$`));
      await expect(page.getByTestId('image-preview')).toHaveCount(0);
      const canvas = page.getByTestId('annotator-canvas');
      await expect(canvas).toHaveAttribute('data-ready', '1');
      await expect(canvas).toHaveAttribute('data-shapes', String(target.boxes.length));
      await expect(page.getByTestId(`mark-label-${labels[0]!.id}`)).toHaveAttribute('data-active', 'true');

      await page.getByTestId('mark-tool-box').click();
      const a = await onCanvas(page, 60, 85);
      const b = await onCanvas(page, 90, 112);
      await page.mouse.move(a.x, a.y);
      await page.mouse.down();
      await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
      await page.mouse.move(b.x, b.y, { steps: 4 });
      await page.mouse.up();
      await expect(canvas).toHaveAttribute('data-shapes', String(target.boxes.length + 1));
      await expect(page.getByText('Please select or create a label first.')).toHaveCount(0);
      await expect(page.getByTestId('mark-save-status')).toHaveAttribute('data-status', 'saved');
      const saved = await call<{ annotations: { labelId: number; geometry: { x1: number; y1: number } }[] }>(
        'GET',
        `/api/models/${modelId}/images/${id}/annotations`,
        undefined,
        await sessionToken(page),
      );
      expect(saved.annotations).toHaveLength(target.boxes.length + 1);
      const drawn = saved.annotations.find((x) => Math.abs(x.geometry.x1 - 60) <= 2 && Math.abs(x.geometry.y1 - 85) <= 2);
      expect(drawn?.labelId).toBe(labels[0]!.id);
    });

    await test.step('/usage shows a training that ran (64 px, 1 epoch, started through the API)', async () => {
      const token = await sessionToken(page);
      await call('POST', `/api/models/${modelId}/images/auto-split`, { confirm: true, ratios: { train: 0.67, valid: 0.33, test: 0 } }, token);
      const params = { model: 'p', imgsz: 64, epochs: 1, batch: 4, mosaic: 0, workers: 0, warmup_epochs: 0 };
      const training = await call<{ id: number }>('POST', `/api/models/${modelId}/trainings`, { params }, token);
      await expect
        .poll(async () => (await call<{ status: string }>('GET', `/api/models/${modelId}/trainings/${training.id}`, undefined, token)).status, {
          timeout: 60_000,
          intervals: [1000],
        })
        .toMatch(/^(succeeded|failed|cancelled)$/);
      await page.goto('/usage');
      const total = page.getByTestId('usage-total-training');
      await expect(total).toHaveAttribute('data-count', '1');
      // A 1-epoch training at 64 px takes seconds: the total time says so (not "0 s").
      await expect(page.getByTestId('usage-time-training')).toHaveText(/^Time: [1-9]\d* (s|min)$/);
      await expect(page.getByTestId('usage-time-test')).toHaveText('Time: 0 s');
      const row = page.locator('[data-testid="usage-entry"][data-kind="training"]');
      await expect(row).toHaveCount(1);
      await expect(row).toContainText(NAME);
      await expect(row).toContainText('Succeeded');
      await expect(page.getByTestId('usage-empty')).toHaveCount(0);
      await page.getByTestId('usage-period-all').click();
      await expect(page.getByTestId('usage-months')).toContainText(new Date().toISOString().slice(0, 7));
      await snap(page, testInfo, 'usage');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
