import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { call, createApprovedUser, setDownloadPermission } from '../support/api.js';
import { autoSplit, choose, closeUpload, createDetectionModel, fillNumber, sessionToken, shownInSplit, uploadWithAnnotations } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { LABELS, drawImages, writeVocZip, type DrawnImage } from '../support/images.js';
import { linkNodeDependencies, runNodeExample, unzipTo, type SdkDetection } from '../support/sdk.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 /parameter, /train, /model, /test, /download/downloadSDK; §4 training, test and export states; §6
 * download permission. A user trains a detection model on a drawn dataset, watches the training, reads the model
 * info, tests it on the test split, exports the SDK and runs its Node example on the test images: the SDK must
 * find the boxes the platform's test found, from the same weights at the same confidence.
 */

const COUNT = 40;
const MODEL_NAME = `Delivery ${Date.now().toString(36)}`;

/**
 * Quick on two shared cores: the pico network at 64 px, one image per step with AdamW and a fixed seed. Two
 * epochs (or four at lr0 0.003) leave every score near 0.005, so there would be no box to compare (0.01 collapsed
 * on one split in 16). The split is random, and how well a short run learns depends on it: with six and then ten
 * epochs, two CI runs found no test box above 0.25, and one split kept from a passing run scored its 4 test boxes
 * 0.40 to 0.86, one of the right class (0.36 to 0.38, three right, after twenty). So twenty epochs (about 45 s on a
 * quiet machine), and the test runs at a lower confidence (below): this spec checks that the SDK reproduces the
 * platform's boxes, not how good a 45-second model is.
 */
const NUMBERS = { imgsz: 64, epochs: 20, batch: 1, mosaic: 0, warmup_epochs: 0, lr0: 0.005, seed: 7 } as const;
const CHOICES = { model: ['p', 'Pico (p)'], optimizer: ['AdamW', 'AdamW'] } as const;
const CHANGED = Object.keys(NUMBERS).length + Object.keys(CHOICES).length;
/** The test's confidence, which the export takes from the latest test and sdk.json repeats. */
const CONF = 0.1;
/** Camera resolution of the export: the drawn images' size. The model input stays the trained 64 px square. */
const CAMERA = { w: 160, h: 120 };

interface Found {
  label: string;
  score: number;
  box: [number, number, number, number];
}

interface TestImage {
  imageId: number;
  name: string;
  width: number;
  height: number;
  predictions: { labelId: number; confidence?: number; geometry: { kind: string; x1: number; y1: number; x2: number; y2: number } }[];
}

/** Like the platform: boxes clamped to the image; one with no area inside it is no detection. */
function clampToImage(d: SdkDetection, width: number, height: number): Found | null {
  const [x1, y1, x2, y2] = d.box.map((v, i) => Math.min(Math.max(v, 0), i % 2 === 0 ? width : height)) as Found['box'];
  return x2 > x1 && y2 > y1 ? { label: d.label, score: d.score, box: [x1, y1, x2, y2] } : null;
}

/**
 * The SDK's letterbox is not bit-exact to the engine's cv2.resize: about 1 % of the input values differ by one
 * level (measured on these images), and a model trained for seconds turns that into scores up to ~0.015 apart
 * while its boxes stay within 0.1 px. So scores may differ this much, and a box this close to the threshold may
 * be found on one side only.
 */
const SCORE_TOLERANCE = 0.05;

/** Pairs each SDK box with the platform box of its label nearest to it, within 1 px; the rest stay unpaired. */
function pair(sdk: Found[], platform: Found[]) {
  const free = [...platform];
  const pairs: { sdk: Found; platform: Found; diff: number }[] = [];
  const unpaired: Found[] = [];
  for (const s of [...sdk].sort((a, b) => b.score - a.score)) {
    const diffTo = (p: Found) => Math.max(...p.box.map((v, i) => Math.abs(v - s.box[i]!)));
    const best = free.filter((p) => p.label === s.label).sort((a, b) => diffTo(a) - diffTo(b))[0];
    if (best && diffTo(best) <= 1) {
      pairs.push({ sdk: s, platform: best, diff: diffTo(best) });
      free.splice(free.indexOf(best), 1);
    } else unpaired.push(s);
  }
  return { pairs, unpaired: [...unpaired, ...free] };
}

/** Records every value the training panel shows for the epoch and the curve's points, however fast they pass. */
async function watchTraining(page: Page): Promise<() => Promise<{ epochs: number[]; points: number[] }>> {
  await page.evaluate(() => {
    const seen = { epochs: [] as number[], points: [] as number[] };
    (window as unknown as { __seen: typeof seen }).__seen = seen;
    const record = (list: number[], value: string | null | undefined) => {
      if (value === null || value === undefined || value === '') return;
      if (list[list.length - 1] !== Number(value)) list.push(Number(value));
    };
    const look = () => {
      record(seen.epochs, document.querySelector('[data-testid="train-epoch"]')?.getAttribute('data-epoch'));
      record(seen.points, document.querySelector('[data-testid="train-curve-metrics"]')?.getAttribute('data-points'));
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-epoch', 'data-points'] });
    look();
  });
  return () => page.evaluate(() => (window as unknown as { __seen: { epochs: number[]; points: number[] } }).__seen);
}

test('train, watch, test (with a mirrored view) and export a detection model; the downloaded SDK finds the platform’s boxes', async ({ user: page }, testInfo) => {
  // Training and two exports on two cores that other work shares; about 2 minutes on a quiet machine.
  test.setTimeout(330_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'loupe-e2e-delivery-'));
  try {
    const images: DrawnImage[] = await drawImages(dir, COUNT);
    const vocZip = path.join(dir, 'voc-annotations.zip');
    await writeVocZip(vocZip, images);
    const account = await createApprovedUser('delivery');
    let modelId = 0;
    let testSplit = 0;

    await test.step('a detection model with 40 labelled images, split 70/20/10', async () => {
      await signInAsUser(page, account);
      modelId = (await createDetectionModel(page, MODEL_NAME)).id;
      await uploadWithAnnotations(page, images.map((i) => i.file), vocZip, COUNT);
      await closeUpload(page);
      await autoSplit(page, { train: 70, valid: 20, test: 10 });
      testSplit = await shownInSplit(page, 'Test', COUNT);
      // SPEC §2: the Model and Deploy groups wait for a first training.
      await expect(page.getByTestId('menu-train')).toHaveCount(0);
      await expect(page.getByTestId('menu-model')).toHaveCount(0);
    });

    await test.step('/parameter: the quick parameters, saved', async () => {
      await page.goto('/parameter');
      await expect(page.getByTestId('param-form')).toBeVisible();
      for (const [key, [, label]] of Object.entries(CHOICES)) await choose(page, `param-${key}`, label);
      for (const [key, value] of Object.entries(NUMBERS)) await fillNumber(page, `param-${key}`, value);
      await expect(page.getByTestId('param-changed-count')).toHaveAttribute('data-count', String(CHANGED));
      await expect(page.getByTestId('param-unsaved')).toBeVisible();
      await page.getByTestId('param-save').click();
      await expect(page.getByTestId('param-saved-at')).toBeVisible();
      await expect(page.getByTestId('param-unsaved')).toBeHidden();
      const saved = await call<{ saved: Record<string, unknown> }>('GET', `/api/models/${modelId}/parameters`, undefined, await sessionToken(page));
      const choices = Object.fromEntries(Object.entries(CHOICES).map(([k, [value]]) => [k, value]));
      expect(saved.saved).toEqual({ ...NUMBERS, ...choices });
    });

    await test.step('/train by its address (no menu leads there before a first training): the saved parameters apply', async () => {
      await page.goto('/train');
      await expect(page).toHaveURL(/\/train\/detection$/);
      await expect(page.getByTestId('train-versions-empty')).toBeVisible();
      await expect(page.getByTestId('train-params-note')).toHaveAttribute('data-changed', String(CHANGED));
    });

    await test.step('start; the epoch and the curves move while watched; the version succeeds', async () => {
      const seen = await watchTraining(page);
      await page.getByTestId('train-start').click();
      const trainingId = await page.getByTestId('train-progress').getAttribute('data-training-id');
      expect(trainingId).toBeTruthy();
      const row = page.getByTestId(`train-row-${trainingId}`);
      await expect
        .poll(() => row.getAttribute('data-status'), { timeout: 240_000, intervals: [1000] })
        .toMatch(/^(succeeded|failed|cancelled)$/);
      const failure = page.getByTestId('train-failed');
      expect(await row.getAttribute('data-status'), (await failure.count()) > 0 ? await failure.innerText() : '').toBe('succeeded');
      await expect(row.getByTestId('train-row-version')).toHaveText('v1');
      // Each epoch was shown as it ended, one curve point per epoch (0 is the panel before the first epoch).
      const { epochs, points } = await seen();
      console.log(`delivery: epochs shown ${epochs.join(' → ')}, curve points ${points.join(' → ')}`);
      const shownEpochs = epochs.filter((e) => e > 0);
      expect(shownEpochs.slice(0, 2), `epochs shown: ${epochs.join(', ')}`).toEqual([1, 2]);
      expect(shownEpochs).toEqual([...shownEpochs].sort((a, b) => a - b));
      expect(shownEpochs[shownEpochs.length - 1]).toBe(NUMBERS.epochs);
      expect(points.filter((p) => p > 0).slice(0, 2), `curve points shown: ${points.join(', ')}`).toEqual([1, 2]);
      expect(Math.max(...points)).toBe(NUMBERS.epochs);
      // The first training opens the Model and Deploy groups.
      await expect(page.getByTestId('menu-model')).toBeVisible();
      await snap(page, testInfo, 'trained');
    });

    let bestEpoch = 0;
    await test.step('/model: the version’s model info', async () => {
      await page.getByTestId('menu-model').click();
      await expect(page).toHaveURL(/\/model$/);
      await expect(page.getByTestId('model-page')).toHaveAttribute('data-version', 'v1');
      const value = async (field: string) => Number(await page.getByTestId(`model-info-${field}`).getAttribute('data-value'));
      await expect(page.getByTestId('model-info')).toBeVisible();
      expect(await value('dataset')).toBe(COUNT);
      expect(await value('totalEpochs')).toBe(NUMBERS.epochs);
      const best = await value('bestEpoch');
      bestEpoch = best;
      expect(best >= 1 && best <= NUMBERS.epochs, `best epoch ${best}`).toBe(true);
      for (const field of ['totalTime', 'inferenceMs', 'fps', 'modelSize']) expect(await value(field), field).toBeGreaterThan(0);
      for (const field of ['precision', 'recall', 'mAP50']) {
        const v = await value(field);
        expect(v >= 0 && v <= 1, `${field} ${v}`).toBe(true);
      }
    });

    let testId = 0;
    let tested: TestImage[] = [];
    await test.step('/test on the test split: results with dashed predicted boxes', async () => {
      await page.getByTestId('menu-test').click();
      await expect(page).toHaveURL(/\/test\/detection$/);
      await expect(page.getByTestId('test-page')).toHaveAttribute('data-status', 'notTested');
      await page.getByTestId('test-source-testSplit').click();
      await fillNumber(page, 'test-conf', CONF);
      // The image and its mirror, averaged: the export below must carry the views for the SDK to find these boxes.
      await choose(page, 'test-tta', 'Mirror (2 views)');
      const started = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/api/models/${modelId}/tests`);
      await page.getByTestId('test-run').click();
      const body = (await (await started).json()) as { code: number; message: string; data: { id: number; settings: { conf: number; tta: string } } };
      expect(body.code, body.message).toBe(0);
      expect(body.data.settings).toMatchObject({ conf: CONF, tta: 'hflip' });
      testId = body.data.id;
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', /^(succeeded|failed|cancelled)$/, { timeout: 90_000 });
      await expect(page.getByTestId('test-status')).toHaveAttribute('data-status', 'succeeded');
      await expect(page.getByTestId('test-results')).toHaveAttribute('data-total', String(testSplit));
      await expect(page.getByTestId('test-run-settings')).toHaveText(`Confidence ${CONF} · IoU 0.6 · Test-time augmentation: Mirror (2 views)`);

      const token = await sessionToken(page);
      tested = (await call<{ items: TestImage[] }>('GET', `/api/models/${modelId}/tests/${testId}/images?pageSize=200`, undefined, token)).items;
      expect(tested).toHaveLength(testSplit);
      for (const img of tested) {
        await expect(page.getByTestId(`test-result-${img.imageId}`)).toHaveAttribute('data-predictions', String(img.predictions.length));
        await expect(page.getByTestId(`test-overlay-${img.imageId}`)).toHaveAttribute('data-dashed', String(img.predictions.length));
      }
      const found = tested.filter((img) => img.predictions.length > 0);
      expect(found.length, `test images with a box above ${CONF} (weights of epoch ${bestEpoch})`).toBeGreaterThan(0);
      const dashed = page.getByTestId(`test-overlay-${found[0]!.imageId}`).locator('[data-testid="test-shape"][data-dashed="true"]');
      await expect(dashed.first()).toHaveAttribute('stroke-dasharray', /\d/);
      await snap(page, testInfo, 'test-results');
    });

    let zipFile = '';
    await test.step('/download/downloadSDK: refused without permission; with it, export and download now', async () => {
      await page.goto('/download/downloadSDK');
      await expect(page.getByTestId('download-sdk')).toBeVisible();
      await expect(page.getByTestId('export-no-permission')).toBeVisible();
      await setDownloadPermission(account.email, true);
      await page.reload();
      await expect(page.getByTestId('export-form')).toBeVisible();
      await expect(page.getByTestId('export-no-permission')).toBeHidden();
      await expect(page.getByTestId('pack-status')).toHaveAttribute('data-status', 'none');
      await expect(page.getByTestId('export-version')).toContainText('v1');
      await fillNumber(page, 'export-width', CAMERA.w);
      await fillNumber(page, 'export-height', CAMERA.h);
      await fillNumber(page, 'export-max-det', 300);
      await page.getByTestId('export-sdk-cpu').click();
      // The version learned upright boxes; the form says so for the user.
      await expect(page.locator('input[data-testid="export-rotated-no"], [data-testid="export-rotated-no"] input')).toBeChecked();
      await page.getByTestId('export-submit').click();
      await expect(page.getByTestId('pack-status')).toHaveAttribute('data-status', 'packing');
      await expect(page.getByTestId('pack-estimate')).toBeVisible();
      const prompt = page.getByTestId('pack-download-prompt');
      await expect(prompt).toBeVisible({ timeout: 150_000 });
      await expect(page.getByTestId('pack-status')).toHaveAttribute('data-status', 'success');
      const download = page.waitForEvent('download');
      await prompt.click();
      const file = await download;
      expect(file.suggestedFilename()).toBe(`${MODEL_NAME}-v1-${CAMERA.w}x${CAMERA.h}-sdk-cpu.zip`);
      zipFile = path.join(dir, file.suggestedFilename());
      await file.saveAs(zipFile);
    });

    await test.step('the SDK’s Node example finds the platform’s boxes on the test images', async () => {
      const sdkDir = path.join(dir, 'sdk');
      const entries = await unzipTo(zipFile, sdkDir);
      for (const f of ['model.onnx', 'sdk.json', 'labels.json', 'node/example.mjs', 'node/lib/index.js', 'node/package.json']) expect(entries).toContain(f);
      const sdk = JSON.parse(readFileSync(path.join(sdkDir, 'sdk.json'), 'utf8')) as Record<string, unknown>;
      expect(sdk).toMatchObject({ sdkType: 'cpu', task: 'detect', version: 'v1', cameraW: CAMERA.w, cameraH: CAMERA.h, inputW: 64, inputH: 64, maxDet: 300 });
      expect(JSON.parse(readFileSync(path.join(sdkDir, 'labels.json'), 'utf8'))).toEqual(expect.arrayContaining([...LABELS]));
      // The same weights at the same thresholds: the platform's test settings are the export's.
      const run = await call<{ settings: { conf: number; iou: number } }>('GET', `/api/models/${modelId}/tests/${testId}`, undefined, await sessionToken(page));
      expect(sdk.conf).toBe(run.settings.conf);
      expect(sdk.iou).toBe(run.settings.iou);
      expect(sdk.tta).toBe('hflip');
      const dependencies = Object.keys((JSON.parse(readFileSync(path.join(sdkDir, 'node/package.json'), 'utf8')) as { dependencies: object }).dependencies);
      linkNodeDependencies(sdkDir, dependencies);

      const labels = await call<{ id: number; name: string }[]>('GET', `/api/models/${modelId}/labels`, undefined, await sessionToken(page));
      const labelName = new Map(labels.map((l) => [l.id, l.name]));
      const files = new Map(images.map((i) => [i.name, i.file]));
      let paired = 0;
      let largest = 0;
      let largestScore = 0;
      for (const img of tested) {
        const out = await runNodeExample(sdkDir, files.get(img.name)!, run.settings.conf);
        expect([out.width, out.height]).toEqual([img.width, img.height]);
        const sdkBoxes = out.detections.map((d) => clampToImage(d, out.width, out.height)).filter((d): d is Found => d !== null);
        const platform = img.predictions.map((p) => ({
          label: labelName.get(p.labelId) ?? `?${p.labelId}`,
          score: p.confidence ?? 0,
          box: [p.geometry.x1, p.geometry.y1, p.geometry.x2, p.geometry.y2] as Found['box'],
        }));
        const { pairs, unpaired } = pair(sdkBoxes, platform);
        const what = `${img.name}: SDK ${JSON.stringify(sdkBoxes)} vs platform ${JSON.stringify(platform)}`;
        for (const u of unpaired) expect(Math.abs(u.score - run.settings.conf), `unpaired box ${JSON.stringify(u)} in ${what}`).toBeLessThan(SCORE_TOLERANCE);
        for (const p of pairs) expect(Math.abs(p.sdk.score - p.platform.score), what).toBeLessThan(SCORE_TOLERANCE);
        paired += pairs.length;
        largest = Math.max(largest, ...pairs.map((p) => p.diff));
        largestScore = Math.max(largestScore, ...pairs.map((p) => Math.abs(p.sdk.score - p.platform.score)));
      }
      console.log(`delivery: the SDK found ${paired} of the platform's boxes; largest differences ${largest.toFixed(4)} px, score ${largestScore.toFixed(4)}`);
      expect(paired, 'boxes found by both').toBeGreaterThan(0);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
