import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { LabelData, TestRunData } from '@loupe/contracts';
import { setFeedbackPort, type ActionNotice } from '@/api/feedback';
import { click, location, renderPage } from '@/pages/auth/test/harness';
import { training } from '@/pages/download/test/fixtures';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import { chooseImages } from '../api/testSelection';
import TestPage from '../TestPage';
import { envelope, fakeFetch, sseStream, testImage, testRun } from './fixtures';

/** Options handed to ECharts per chart element (jsdom has no canvas to draw on). */
const chartOptions = vi.hoisted(() => new Map<HTMLElement, unknown>());
vi.mock('@/pages/training/charts/echarts', () => ({
  echarts: {
    init: (el: HTMLElement) => ({
      setOption: (option: unknown) => chartOptions.set(el, option),
      resize: () => undefined,
      dispose: () => chartOptions.delete(el),
    }),
  },
}));

const labels: LabelData[] = [
  { id: 1, name: 'dent', color: '#ff0000', imageCount: 3 },
  { id: 2, name: 'scratch', color: '#00ff00', imageCount: 2 },
];
const box = (x: number) => ({ kind: 'box', x1: x, y1: 10, x2: x + 50, y2: 60 });

const summary = {
  images: 2,
  detections: 3,
  inference_ms: 4.2,
  fps: 238,
  precision: 0.5,
  recall: 0.5,
  f1: 0.5,
  mAP50: 0.61,
  mAP50_95: 0.4,
  suggested_conf: 0.4,
  per_class: { dent: { AP50: 0.7, AP50_95: 0.5, instances: 1 }, scratch: { AP50: 0.5, AP50_95: 0.3, instances: 1 } },
  confusion_matrix: [
    [1, 0, 0],
    [0, 0, 1],
    [0, 1, 0],
  ],
};

const withErrors = testImage(101, {
  predictions: [
    { labelId: 1, geometry: box(10), confidence: 0.93, matched: true },
    { labelId: 2, geometry: box(200), confidence: 0.41, matched: false },
  ],
  groundTruth: [
    { labelId: 1, geometry: box(10), matched: true },
    { labelId: 2, geometry: box(300), matched: false },
  ],
  tp: 1,
  fp: 1,
  fn: 1,
});
const clean = testImage(102);

const notices: ActionNotice[] = [];
beforeEach(() => {
  notices.length = 0;
  setFeedbackPort({ notice: (n) => notices.push(n) });
  useSession.setState({ token: 'tok' });
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

/** The model's API with `runs` as the list (a function: it changes as runs start and end). */
function serve(runs: () => TestRunData[], extra: (key: string, url: URL) => Response | undefined = () => undefined) {
  return fakeFetch((key, url) => {
    const mine = extra(key, url);
    if (mine) return mine;
    if (key === 'GET /api/models/5/tests') return envelope({ items: runs(), total: runs().length });
    const one = /^GET \/api\/models\/5\/tests\/(\d+)$/.exec(key);
    if (one) return envelope(runs().find((r) => r.id === Number(one[1])));
    if (key === 'GET /api/models/5/tests/9/images') {
      const filter = url.searchParams.get('filter');
      const items = filter === 'errors' || filter === 'withResults' ? [withErrors] : filter === 'noResults' ? [clean] : [withErrors, clean];
      return envelope({ items, total: items.length });
    }
    if (key === 'GET /api/models/5/trainings') return envelope({ items: [training()], total: 1 });
    if (key === 'GET /api/models/5/labels') return envelope(labels);
    return undefined;
  });
}

describe('/test results', () => {
  it('draws predictions dashed over each thumbnail, with the counts as data attributes', async () => {
    serve(() => [testRun({ summary })]);
    renderPage(<TestPage />, '/test/detection');
    const card = await screen.findByTestId('test-result-101');
    expect(card.dataset).toMatchObject({ predictions: '2', groundTruth: '2', tp: '1', fp: '1', fn: '1' });
    const overlay = screen.getByTestId('test-overlay-101');
    expect(overlay.dataset).toMatchObject({ shapes: '4', dashed: '2' });
    const roles = [...overlay.querySelectorAll('[data-testid="test-shape"]')].map((s) => [s.getAttribute('data-role'), s.getAttribute('stroke-dasharray')]);
    expect(roles).toEqual([
      ['gt', null],
      ['fn', null],
      ['tp', '6 4'],
      ['fp', '6 4'],
    ]);
    expect(within(overlay).getByText('dent 0.93')).toBeTruthy();
    expect(within(overlay).getByText('FP scratch 0.41')).toBeTruthy();
    expect(screen.getByTestId('test-result-102').dataset.predictions).toBe('0');
  });

  it('names the settings the shown run used, test-time augmentation only when it was on', async () => {
    const settings = { conf: 0.4, iou: 0.6, half: false, agnostic: true, tta: 'flips' as const };
    serve(() => [testRun({ summary, settings })]);
    renderPage(<TestPage />, '/test/detection');
    expect((await screen.findByTestId('test-run-settings')).textContent).toBe(
      'Confidence 0.4 · IoU 0.6 · Class-agnostic NMS · Test-time augmentation: Flips (4 views)',
    );
    cleanup();
    serve(() => [testRun({ summary })]);
    renderPage(<TestPage />, '/test/detection');
    expect((await screen.findByTestId('test-run-settings')).textContent).toBe('Confidence 0.25 · IoU 0.7');
  });

  it('shows P, R, F1, mAP50 and the analysis chart when the images had ground truth', async () => {
    serve(() => [testRun({ summary })]);
    renderPage(<TestPage />, '/test/detection');
    const metrics = await screen.findByTestId('test-metrics');
    expect(metrics.dataset.hasGt).toBe('true');
    expect(screen.getByTestId('test-metric-precision').dataset.value).toBe('50.0 %');
    expect(screen.getByTestId('test-metric-map50').dataset.value).toBe('61.0 %');
    expect(screen.getByTestId('test-metric-fn').dataset.value).toBe('1');
    const chart = screen.getByTestId('test-chart');
    expect(chart.dataset.points).toBe('2');
    const series = (chartOptions.get(chart) as { series: { name: string; data: unknown[] }[] }).series;
    expect(series.map((s) => [s.name, s.data])).toEqual([
      ['True positives', [1, 0]],
      ['False positives', [0, 1]],
      ['False negatives', [0, 1]],
      ['AP50', [0.7, 0.5]],
    ]);
    // The best-F1 confidence goes into the form.
    await click('test-use-suggested');
    await waitFor(() => expect((screen.getByTestId('test-conf') as HTMLInputElement).value).toBe('0.40'));
  });

  it('says why there are no metrics without ground truth', async () => {
    serve(() => [testRun({ summary: { images: 2, detections: 0, inference_ms: 3, fps: 300 } })]);
    renderPage(<TestPage />, '/test/detection');
    expect((await screen.findByTestId('test-metrics')).dataset.hasGt).toBe('false');
    expect(screen.getByTestId('test-no-gt')).toBeTruthy();
    expect(screen.queryByTestId('test-chart')).toBeNull();
  });

  it('filters the images and opens one in the viewer', async () => {
    const calls = serve(() => [testRun({ summary })]);
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-result-102');
    await click('test-filter-errors');
    await waitFor(() => expect(screen.queryByTestId('test-result-102')).toBeNull());
    expect(calls.some((c) => c.url.includes('/tests/9/images?filter=errors'))).toBe(true);
    expect(screen.getByTestId('test-results').dataset.filter).toBe('errors');
    await click('test-result-101');
    const boxes = await screen.findByTestId('test-viewer-boxes');
    expect(within(boxes).getByText('Missed')).toBeTruthy();
    expect(screen.getByTestId('test-viewer-mark').getAttribute('href')).toBe('/mark/detection?imageId=101');
  });

  it('shows the no-run and loading-failed states', async () => {
    serve(() => []);
    renderPage(<TestPage />, '/test/detection');
    expect(await screen.findByTestId('test-no-runs')).toBeTruthy();
    expect(screen.getByTestId('test-page').dataset.status).toBe('notTested');
    cleanup();
    let fail = true;
    serve(() => [], (key) => (key === 'GET /api/models/5/tests' && fail ? envelope(null, 20004, 'gone') : undefined));
    renderPage(<TestPage />, '/test/detection');
    expect(await screen.findByTestId('test-runs-error')).toBeTruthy();
    fail = false;
    await click('test-runs-retry');
    expect(await screen.findByTestId('test-no-runs')).toBeTruthy();
  });

  it('shows an empty filter and a results page that failed to load', async () => {
    let fail = false;
    serve(() => [testRun({ summary })], (key, url) => {
      if (key !== 'GET /api/models/5/tests/9/images') return undefined;
      if (fail) return envelope(null, 20004, 'gone');
      return url.searchParams.get('filter') === 'noResults' ? envelope({ items: [], total: 0 }) : undefined;
    });
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-result-101');
    await click('test-filter-noResults');
    expect((await screen.findByTestId('test-results-empty')).textContent).toContain('Every image has results.');
    fail = true;
    await click('test-filter-withResults');
    expect(await screen.findByTestId('test-results-error')).toBeTruthy();
  });

  it('sends a model opened on another type to its own /test', async () => {
    serve(() => []);
    renderPage(<TestPage />, '/test/ocr');
    expect(await location()).toBe('/test/detection');
  });
});

describe('/test run', () => {
  it('starts a run, locks the project while it streams progress, stops it and unlocks when it ends', async () => {
    const stream = sseStream();
    let runs: TestRunData[] = [];
    const active = testRun({ id: 10, status: 'queued', done: 0, imageCount: 10, summary: null });
    const calls = serve(
      () => runs,
      (key) => {
        if (key === 'POST /api/models/5/tests') {
          runs = [active];
          return envelope(active);
        }
        if (key === 'GET /api/models/5/tests/10/events') return stream.response();
        if (key === 'POST /api/models/5/tests/10/stop') return envelope(active);
        return undefined;
      },
    );
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-no-runs');
    await waitFor(() => expect(screen.getByTestId('version-option-11')).toBeTruthy());
    await click('test-run');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ trainingId: 11, source: 'testSplit', settings: { conf: 0.25, iou: 0.6, half: false, agnostic: false, tta: 'off' } }));
    expect(useProject.getState().project?.projectStatus).toBe('testing');

    await screen.findByTestId('test-active');
    const sse = await waitFor(() => calls.find((c) => c.url.endsWith('/tests/10/events'))!);
    expect(sse.headers).toMatchObject({ 'X-Token': 'tok', Accept: 'text/event-stream' });
    await act(async () => stream.send('progress', { phase: 'testing', done: 3, total: 10 }));
    await waitFor(() => expect(screen.getByTestId('test-progress').dataset).toMatchObject({ phase: 'testing', done: '3', total: '10' }));
    expect((screen.getByTestId('test-run') as HTMLButtonElement).disabled).toBe(true);

    await click('test-stop');
    await act(async () => fireEvent.click(await screen.findByTestId('test-stop-confirm')));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url.endsWith('/tests/10/stop'))).toBe(true));

    runs = [{ ...active, status: 'failed', error: 'Stopped by the user.', endedAt: '2026-01-02T00:02:00.000Z' }];
    await act(async () => {
      stream.send('state', { status: 'failed', error: 'Stopped by the user.' });
      stream.end();
    });
    await waitFor(() => expect(screen.getByTestId('test-status').dataset.status).toBe('failed'));
    expect(screen.getByTestId('test-error').textContent).toContain('Stopped by the user.');
    expect(useProject.getState().project?.projectStatus).toBe('no');
  });

  it('shows no earlier run’s figures under a new run while it is testing, and the new run’s once it ends', async () => {
    const stream = sseStream();
    const previous = testRun({ id: 9, version: 'v1', summary });
    const running = testRun({ id: 12, trainingId: 11, version: 'v2', status: 'testing', done: 1, imageCount: 4, summary: null, endedAt: null });
    let runs: TestRunData[] = [running, previous];
    serve(
      () => runs,
      (key) => (key === 'GET /api/models/5/tests/12/events' ? stream.response() : undefined),
    );
    renderPage(<TestPage />, '/test/detection');
    expect((await screen.findByTestId('test-active')).textContent).toContain('Version v2');
    // v1's precision and mAP would otherwise stand below "Version v2".
    expect(screen.queryByTestId('test-metrics')).toBeNull();
    expect(screen.queryByTestId('test-metrics-card')).toBeNull();
    expect(screen.queryByTestId('test-result-101')).toBeNull();

    runs = [{ ...running, status: 'succeeded', done: 4, summary: { ...summary, precision: 0.9 }, endedAt: '2026-01-02T00:03:00.000Z' }, previous];
    await act(async () => {
      stream.send('state', { status: 'succeeded', error: null });
      stream.end();
    });
    const card = await screen.findByTestId('test-metrics-card');
    expect(card.dataset.runId).toBe('12');
    expect(card.textContent).toContain('Version v2');
    expect(screen.getByTestId('test-metric-precision').dataset.value).toBe('90.0 %');
  });

  it('picks up a run already going when the page opens', async () => {
    const stream = sseStream();
    useProject.getState().updateProject({ projectStatus: 'no' });
    serve(
      () => [testRun({ id: 10, status: 'testing', done: 4, imageCount: 8 })],
      (key) => (key === 'GET /api/models/5/tests/10/events' ? stream.response() : undefined),
    );
    renderPage(<TestPage />, '/test/detection');
    expect((await screen.findByTestId('test-progress')).dataset).toMatchObject({ done: '4', total: '8' });
    await waitFor(() => expect(useProject.getState().project?.projectStatus).toBe('testing'));
    stream.end();
  });

  it('tests the images chosen on /testImage, and asks for some when none are', async () => {
    const calls = serve(() => [], (key) => (key === 'POST /api/models/5/tests' ? envelope(testRun({ id: 10, status: 'queued' })) : undefined));
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-no-runs');
    await click('test-source-images');
    await click('test-run');
    expect(await screen.findByText('No images chosen yet: choose them on the Test images page.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    cleanup();

    chooseImages('5', [7, 8]);
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-no-runs');
    await waitFor(() => expect(screen.getByTestId('version-option-11')).toBeTruthy());
    await click('test-run');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ source: 'images', imageIds: [7, 8] }));
  });

  it('offers test-time augmentation for versions that trained boxes, axis-aligned or rotated, and keeps a run’s views', async () => {
    const versions = [training({ id: 12, serialNo: 2, version: 'v2' }), training({ rotated: true, task: 'obb' })]; // newest first
    const served = (runs: TestRunData[]) =>
      serve(
        () => runs,
        (key) => {
          if (key === 'GET /api/models/5/trainings') return envelope({ items: versions, total: versions.length });
          return key === 'POST /api/models/5/tests' ? envelope(testRun({ id: 10, status: 'queued' })) : undefined;
        },
      );
    const ttaItem = () => screen.getByTestId('test-tta').closest('.ant-form-item')!;
    let calls = served([]);
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-no-runs');
    await waitFor(() => expect(screen.getByTestId('version-option-12')).toBeTruthy());
    expect(ttaItem().classList.contains('ant-form-item-hidden')).toBe(false);
    await act(async () => fireEvent.mouseDown(document.getElementById('tta')!)); // Ant Design's Select opens on its input
    const option = await waitFor(() => document.querySelector('.ant-select-item-option[title="Flips (4 views)"]')!);
    await act(async () => fireEvent.click(option));
    await click('test-run');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ trainingId: 12, settings: { tta: 'flips' } }));
    cleanup();

    // The latest run tested the rotated-box version with 4 views: its settings come back, views included, and are
    // offered and sent again (rotated boxes average as centres and shape matrices; OCR is the task without views,
    // taskResults.test.tsx).
    calls = served([testRun({ settings: { conf: 0.25, iou: 0.7, half: false, agnostic: false, tta: 'flips' } })]);
    renderPage(<TestPage />, '/test/detection');
    await waitFor(() => expect(screen.getByTestId('version-option-11')).toBeTruthy());
    expect(ttaItem().classList.contains('ant-form-item-hidden')).toBe(false);
    await click('test-run');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ trainingId: 11, settings: { tta: 'flips' } }));
  });

  it('sends the user to training on 80066 and shows an ongoing test on 40004', async () => {
    let code = 80066;
    let runs: TestRunData[] = [];
    serve(
      () => runs,
      (key) => {
        if (key !== 'POST /api/models/5/tests') return undefined;
        if (code === 40004) runs = [testRun({ id: 12, status: 'testing', done: 1, imageCount: 5 })];
        return envelope(null, code, code === 80066 ? 'No model to test. Please train first.' : 'A test is already running for this model.');
      },
    );
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-no-runs');
    await click('test-run');
    await waitFor(() => expect(notices).toEqual([{ message: 'No model to test. Please train first.', actionLabel: 'actions.goTrain', to: '/train/detection' }]));
    expect(useProject.getState().project?.projectStatus).toBe('no');
    code = 40004;
    await click('test-run');
    expect(await screen.findByText('A test is already running for this model.')).toBeTruthy();
    expect((await screen.findByTestId('test-progress')).dataset.total).toBe('5');
  });
});
