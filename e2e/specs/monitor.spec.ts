import { call, createApprovedUser, createModel } from '../support/api.js';
import { labeledDrawnImages, sessionToken } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

/**
 * SPEC §2 /monitor (issue 31 item 3). A user opens a detection model (drawn images labeled through the API: the
 * labeling studio has its own spec), starts a short training on /train and watches it on /monitor: phase, epoch,
 * time left, loss and metric curves, the engine's CPU share and memory, no GPU on this machine, its log lines,
 * each moving as the run goes; when it ends it is in the job history, with a link back to /train.
 */

const COUNT = 72;
/**
 * Nano at 64 px, 3 epochs of 60 steps (one image per step): each epoch lasts a few seconds, long enough to be seen
 * between two polls (16 steps of pico ran all 3 epochs between two).
 */
const PARAMS = { model: 'n', imgsz: 64, epochs: 3, batch: 1, mosaic: 0, warmup_epochs: 0, workers: 0, amp: false, procs: 1, seed: 1 };

test('/monitor: the running training’s phase, epoch, time left, curves, engine CPU, memory and log move; then it is in the history', async ({ user: page }, testInfo) => {
  test.setTimeout(120_000);
  const account = await createApprovedUser('monitor');

  await test.step('a detection model with 72 labeled images, split 60/12, opened from the model list', async () => {
    await signInAsUser(page, account);
    const token = await sessionToken(page);
    const modelId = (await createModel(token, `Watched ${Date.now().toString(36)}`, 'DETECTION')).id;
    await labeledDrawnImages(token, modelId, COUNT, 60);
    await call('PUT', `/api/models/${modelId}/parameters`, { params: PARAMS }, token);
    await page.goto('/agentList');
    await page.getByTestId(`model-open-${modelId}`).click();
    await expect(page).toHaveURL(/\/gallery$/);
  });

  await test.step('/monitor before any job: nothing running, an empty history', async () => {
    await page.goto('/monitor');
    await expect(page.getByTestId('page-title')).toHaveText('Monitor');
    await expect(page.getByTestId('monitor-idle')).toBeVisible();
    await expect(page.getByTestId('monitor-history-row')).toHaveCount(0);
  });

  const seen = { epochs: new Set<string>(), cpu: new Set<string>(), memory: new Set<string>(), logLines: new Set<number>(), points: new Set<number>(), phases: new Set<string>(), eta: new Set<string>(), gpu: new Set<string>(), series: new Set<string>(), log: [] as string[], shot: false };
  await test.step('start on /train, then /monitor follows the run as it goes', async () => {
    await page.goto('/train');
    await page.getByTestId('train-start').click();
    await expect(page.getByTestId('train-progress')).toBeVisible();
    await page.goto('/monitor');
    const active = page.getByTestId('monitor-active');
    await expect(active).toHaveAttribute('data-kind', 'training');
    await expect(page.getByTestId('monitor-active-title')).toHaveText('Training v1');
    // What the page shows now; '' when the element is gone (the run ended between two reads).
    const read = (id: string) => page.getByTestId(id).innerText({ timeout: 1000 }).then((x) => x.trim(), () => '');
    const attr = (id: string, name: string) => page.getByTestId(id).getAttribute(name, { timeout: 1000 }).then((x) => x ?? '', () => '');
    // Every 2 s the page asks again: record what it shows until the run has ended.
    await expect
      .poll(
        async () => {
          if ((await active.count()) === 0) return 'ended';
          seen.phases.add(await read('monitor-phase'));
          if ((await attr('monitor-active', 'data-state')) === 'running') {
            const epoch = await read('monitor-epoch');
            seen.epochs.add(epoch);
            seen.cpu.add(await read('monitor-cpu'));
            seen.memory.add(await read('monitor-memory'));
            const lines = await attr('monitor-log', 'data-lines');
            if (lines) seen.logLines.add(Number(lines));
            const points = await attr('monitor-curve-loss', 'data-points');
            if (points) seen.points.add(Number(points));
            // While an epoch is done and more are to come: the time left, no GPU claimed on this CPU machine, the epoch's log line.
            if (/^[12] \/ 3$/.test(epoch)) {
              seen.eta.add(await read('monitor-eta'));
              // '' is the run ending between the epoch's read and this one (the element is gone), not a value shown.
              const gpu = await read('monitor-gpu');
              if (gpu) seen.gpu.add(gpu);
              seen.log.push(await read('monitor-log'));
              seen.series.add(await attr('monitor-curve-metrics', 'data-series'));
              if (!seen.shot) {
                seen.shot = true;
                await snap(page, testInfo, 'running');
              }
            }
          }
          return 'running';
        },
        { timeout: 100_000, intervals: [500] },
      )
      .toBe('ended');
    console.log(`monitor saw: phases ${[...seen.phases].join(', ')}; epochs ${[...seen.epochs].join(', ')}; CPU ${[...seen.cpu].join(', ')}; memory ${[...seen.memory].join(', ')}; log lines ${[...seen.logLines].join(', ')}; curve points ${[...seen.points].join(', ')}`);
    // The figures moved while it ran: more than one epoch, CPU share and memory read from the engine process, a growing log and curve.
    expect([...seen.epochs].filter((e) => /^\d+ \/ 3$/.test(e)).length).toBeGreaterThanOrEqual(2);
    expect([...seen.cpu].some((c) => /^\d+(\.\d)? %$/.test(c) && parseFloat(c) > 0)).toBe(true);
    expect([...seen.memory].some((m) => /^\d+(\.\d)? (MB|GB)$/.test(m))).toBe(true);
    expect(seen.cpu.size + seen.memory.size).toBeGreaterThan(2);
    expect(Math.max(...seen.logLines)).toBeGreaterThan(Math.min(...seen.logLines));
    expect(Math.max(...seen.points)).toBeGreaterThan(Math.min(...seen.points));
    expect([...seen.eta].some((e) => /^\d+ s$|min/.test(e)), [...seen.eta].join(', ')).toBe(true);
    expect([...seen.gpu]).toEqual(['No GPU (trains on the CPU)']);
    expect(seen.log.some((l) => /epoch [12]\/3 loss/.test(l))).toBe(true);
    expect([...seen.series].some((x) => x.includes('mAP50'))).toBe(true);
  });

  await test.step('the history: the training, succeeded, with its version, times and duration; the project unlocked; Open leads to /train', async () => {
    await expect(page.getByTestId('monitor-idle')).toBeVisible();
    const row = page.getByTestId('monitor-history-row');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute('data-kind', 'training');
    await expect(row).toHaveAttribute('data-version', 'v1');
    await expect(row).toHaveAttribute('data-state', 'succeeded');
    await expect(row.getByTestId('monitor-history-state')).toHaveText('Succeeded');
    await expect(row.getByTestId('monitor-history-duration')).toHaveText(/^\d+ s$|min/);
    await snap(page, testInfo, 'history');
    // The run ended on this page: the project is unlocked, so the model info opens instead of sending back to /train.
    await page.getByTestId('menu-model').click();
    await expect(page).toHaveURL(/\/model$/);
    await page.goto('/monitor');
    await page.getByTestId('monitor-history-row').getByTestId('monitor-history-open').click();
    await expect(page).toHaveURL(/\/train\/detection$/);
  });
});
