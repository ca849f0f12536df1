import { call, createApprovedUser, createModel } from '../support/api.js';
import { fillNumber, labeledDrawnImages, sessionToken } from '../support/dataset.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

/**
 * Issue 35, the AI agent (SPEC §2 agent, §4 agent phases). A user with a detection model of drawn, labelled images
 * opens /agent, gives the agent a two-minute budget and starts it: the current phase advances through the working
 * phases in their order, the trials table fills, the log explains its decisions in sentences, and the run ends
 * complete with a best version. On /test that version offers the confidence the agent suggests.
 */

const COUNT = 40;
const TRAIN = 32;
/** Saved parameters the agent starts from: small and fast at 64 px, so each trial and the training take seconds. */
const PARAMS = { model: 'p', imgsz: 64, epochs: 4, batch: 8, mosaic: 0, warmup_epochs: 0, workers: 0, amp: false, procs: 1, seed: 1 };
const BUDGET_MIN = 2;
const ORDER = ['initialising', 'tuning', 'training', 'testing', 'retraining', 'complete'];

test('/agent: a two-minute run advances through its phases, fills the trials, explains itself and suggests a confidence on /test', async ({ user: page }, testInfo) => {
  test.setTimeout(240_000);
  const account = await createApprovedUser('agent');
  let modelId = 0;

  await test.step('a detection model with 40 labelled images, split 32/8, opened from the model list', async () => {
    await signInAsUser(page, account);
    const token = await sessionToken(page);
    modelId = (await createModel(token, `Agent ${Date.now().toString(36)}`, 'DETECTION')).id;
    await labeledDrawnImages(token, modelId, COUNT, TRAIN);
    await call('PUT', `/api/models/${modelId}/parameters`, { params: PARAMS }, token);
    await page.goto('/agentList');
    await page.getByTestId(`model-open-${modelId}`).click();
    await expect(page).toHaveURL(/\/gallery$/);
  });

  await test.step('/agent: nothing run yet; a two-minute budget, then Start', async () => {
    await page.goto('/agent');
    await expect(page.getByTestId('agent-start-form')).toBeVisible();
    await expect(page.getByTestId('agent-empty')).toBeVisible();
    await fillNumber(page, 'agent-budget', BUDGET_MIN);
    await page.getByTestId('agent-start').click();
    // An empty marker inside the current step: attached, not visible.
    await expect(page.getByTestId('agent-phase-current')).toBeAttached();
  });

  const seen = { phases: [] as string[], trials: new Set<number>(), logs: new Set<number>() };
  await test.step('the phases advance, the trials table fills and the log grows until the run is complete', async () => {
    // What the page shows now; '' or 0 when the element is gone between two reads.
    const phase = () => page.getByTestId('agent-phase-current').getAttribute('data-phase', { timeout: 1000 }).then((x) => x ?? '', () => '');
    await expect
      .poll(
        async () => {
          const now = await phase();
          if (now && seen.phases.at(-1) !== now) seen.phases.push(now);
          seen.trials.add(await page.getByTestId('agent-trial-row').count());
          seen.logs.add(await page.getByTestId('agent-log-entry').count());
          return now;
        },
        { timeout: 200_000, intervals: [500] },
      )
      .toMatch(/^(complete|failed|cancelled)$/);
    console.log(`agent page saw: phases ${seen.phases.join(' → ')}; trial rows ${[...seen.trials].join(', ')}; log entries ${[...seen.logs].join(', ')}`);
    expect(seen.phases.at(-1), await page.getByTestId('agent-run').innerText()).toBe('complete');
    // In the SPEC's order, none going back, and more than one working phase seen on the way.
    const at = seen.phases.map((p) => ORDER.indexOf(p));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(seen.phases).toContain('training');
    expect(seen.phases.length).toBeGreaterThanOrEqual(3);
    // The table and the log filled while the run went on, not only at its end.
    expect(Math.max(...seen.trials)).toBeGreaterThanOrEqual(1);
    expect(seen.logs.size).toBeGreaterThanOrEqual(3);
    await snap(page, testInfo, 'complete');
  });

  await test.step('the trials and the log: scored trials with their parameters, decisions in sentences', async () => {
    await expect(page.getByTestId('agent-trials')).toHaveAttribute('data-count', /^[1-9]\d*$/);
    const states = await page.getByTestId('agent-trial-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-state')));
    expect(states.every((s) => ['complete', 'pruned', 'failed'].includes(s ?? '')), states.join(', ')).toBe(true);
    const entries = page.getByTestId('agent-log-entry');
    const texts = await entries.allInnerTexts();
    const keys = await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-key') ?? ''));
    // Rendered for the user (not message keys), and with the figures behind the decisions.
    expect(texts.every((t, i) => t.trim().length > 20 && t.trim() !== keys[i]), texts.join('\n')).toBe(true);
    expect(texts.some((t) => /\d/.test(t)), texts.join('\n')).toBe(true);
    const phases = await entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-phase')));
    expect(new Set(phases).size, phases.join(', ')).toBeGreaterThanOrEqual(3);
  });

  await test.step('the result names the best version; /test offers the suggested confidence for it', async () => {
    await expect(page.getByTestId('agent-result')).toBeVisible();
    const best = page.getByTestId('agent-best-version');
    await expect(best).toBeVisible();
    const version = await best.getAttribute('data-version');
    expect(version).toMatch(/^v\d+$/);
    await page.getByTestId('agent-open-test').click();
    await expect(page).toHaveURL(/\/test/);
    await expect(page.getByTestId('test-version')).toContainText(version!);
    const suggested = page.getByTestId('suggested-conf');
    await expect(suggested).toBeVisible();
    const conf = Number(await suggested.getAttribute('data-value'));
    expect(conf).toBeGreaterThan(0);
    expect(conf).toBeLessThan(1);
    await snap(page, testInfo, 'test-suggested');
    // "Use" puts it into the confidence field.
    await page.getByTestId('suggested-conf-use').click();
    const field = page.getByTestId('test-conf');
    const input = (await field.evaluate((n) => n.tagName)) === 'INPUT' ? field : field.locator('input');
    await expect.poll(async () => Number(await input.inputValue())).toBeCloseTo(conf, 2);
  });
});
