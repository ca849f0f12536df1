import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { DatasetAnalysisData, TestAnalysisData } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import { envelope, fakeFetch, testRun } from '@/pages/testing/test/fixtures';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import StatisticsPage from '../StatisticsPage';
import { analysisData, testAnalysis } from './fixtures';

// jsdom has no canvas: ECharts gets a stand-in, and the charts' data attributes tell what was drawn.
vi.mock('@/pages/training/charts/echarts', () => ({
  echarts: { use: () => undefined, init: () => ({ setOption: () => undefined, resize: () => undefined, dispose: () => undefined }) },
}));

beforeEach(() => {
  useSession.setState({ token: 'tok' });
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

const text = (testId: string) => screen.getByTestId(testId).textContent;

describe('/statistics dataset analysis', () => {
  it('lists findings errors first with their messages and images, and applies a fix after a confirm', async () => {
    let stored: DatasetAnalysisData = analysisData();
    const calls = fakeFetch((key) => {
      if (key === 'GET /api/models/5/analysis') return envelope(stored);
      if (key === 'POST /api/models/5/analysis/7/fix') {
        stored = analysisData({ stale: true });
        return envelope({ fixed: 1 });
      }
      return undefined;
    });
    renderPage(<StatisticsPage />, '/statistics?id=5&tab=dataset');
    const list = await screen.findByTestId('statistics-findings');
    const order = [...list.querySelectorAll('[data-severity]')].map((e) => e.getAttribute('data-testid'));
    expect(order).toEqual(['finding-leakage', 'finding-degenerate_box', 'finding-rare_class']);
    expect(text('finding-message-rare_class')).toBe('Classes with fewer than 10 instances: scratch.');
    expect(text('finding-message-degenerate_box')).toBe('2 boxes have no area or lie wholly outside their image.');
    expect(screen.getByTestId('finding-image-1').getAttribute('href')).toBe('/mark/detection?imageId=1');
    expect(screen.getByTestId('finding-image-1').querySelector('img')!.getAttribute('src')).toBe('/api/models/5/images/1/thumbnail');
    // Only the findings with a safe fix have a button.
    expect(screen.queryByTestId('finding-fix-rare_class')).toBeNull();
    expect(screen.getByTestId('recommendation-imgsz').textContent).toContain('Image size 960: 31 % of the boxes are under 8 px at 640.');
    expect(screen.getByTestId('recommendation-imgsz').textContent).toContain('imgsz = 960');
    expect(screen.getByTestId('stat-tiny-share').textContent).toBe('22.2 %');

    await click('finding-fix-leakage');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await act(async () => {
      fireEvent.click(await screen.findByTestId('finding-fix-confirm'));
    });
    await waitFor(() => expect(calls.filter((c) => c.method === 'POST').map((c) => [c.url, c.body])).toEqual([['/api/models/5/analysis/7/fix', { fix: 'moveLeaked' }]]));
    // The analysis is read again: now stale, it offers a new run and no more fixes.
    expect(await screen.findByTestId('statistics-stale')).toBeTruthy();
    expect((screen.getByTestId('finding-fix-degenerate_box') as HTMLButtonElement).disabled).toBe(true);
  });

  it('starts from an empty state, queues an analysis and polls it until it completes', async () => {
    let stored: DatasetAnalysisData | null = null;
    const calls = fakeFetch((key) => {
      if (key === 'GET /api/models/5/analysis') return stored ? envelope(stored) : envelope(null, 40107, 'Not analysed');
      if (key === 'POST /api/models/5/analysis') {
        stored = analysisData({ status: 'queued', result: null, finishedAt: null });
        return envelope(stored);
      }
      return undefined;
    });
    renderPage(<StatisticsPage />, '/statistics?id=5');
    expect(await screen.findByTestId('statistics-empty')).toBeTruthy();
    await click('statistics-analyse');
    expect((await screen.findByTestId('statistics-status')).dataset.status).toBe('queued');
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({});
    stored = analysisData();
    await waitFor(() => expect(screen.getByTestId('statistics-status').dataset.status).toBe('completed'), { timeout: 4000 });
    expect(screen.getByTestId('chart-per-class').dataset.points).toBe('2');
    expect(screen.getByTestId('chart-box-width').dataset.points).toBe('9');
    expect(screen.getByTestId('chart-heatmap')).toBeTruthy();
  });
});

describe('/statistics test analysis', () => {
  it('shows the run at its confidence, then asks again where the slider rests', async () => {
    const calls = fakeFetch((key, url) => {
      if (key === 'GET /api/models/5/tests') return envelope({ items: [testRun({ id: 9 }), testRun({ id: 8, status: 'failed' })], total: 2 });
      if (key === 'GET /api/models/5/tests/9/analysis') {
        const conf = Number(url.searchParams.get('conf') ?? 0.25);
        return envelope(testAnalysis({ conf }) satisfies TestAnalysisData);
      }
      return undefined;
    });
    renderPage(<StatisticsPage />, '/statistics?id=5&tab=test&testId=9');
    const view = await screen.findByTestId('statistics-test');
    expect(view.dataset.conf).toBe('0.25');
    expect(screen.getByTestId('chart-f1').dataset.points).toBe('3');
    expect(screen.getByTestId('chart-pr').dataset.series).toBe('dent scratch');
    expect(screen.getByTestId('chart-errors').dataset.points).toBe('4');
    expect(screen.queryByTestId('chart-confusion')).toBeNull();
    expect(screen.getByTestId('class-row-dent').textContent).toContain('61.5 %');
    expect(screen.getByTestId('statistics-suggested').textContent).toContain('Best F1 0.87 at 0.42');
    expect(screen.getByTestId('statistics-suggested').textContent).toContain('NG recall 95 % at 0.18 (dent)');

    const handle = screen.getByTestId('statistics-conf').querySelector('[role="slider"]')!;
    await act(async () => {
      fireEvent.keyDown(handle, { key: 'ArrowRight', keyCode: 39, which: 39 });
    });
    await waitFor(() => expect(screen.getByTestId('statistics-test').dataset.conf).toBe('0.26'));
    expect(calls.map((c) => c.url)).toContain('/api/models/5/tests/9/analysis?conf=0.26');
  });

  it('draws what each task has: the confusion matrix for a classifier, IoU and no curves for a segmenter', async () => {
    let answer = testAnalysis({ task: 'classify', prCurves: [], errors: { wrongClass: 3 }, confusion: { labels: ['ok', 'ng'], matrix: [[5, 1], [2, 7]] } });
    fakeFetch((key) => {
      if (key === 'GET /api/models/5/tests') return envelope({ items: [testRun()], total: 1 });
      if (key === 'GET /api/models/5/tests/9/analysis') return envelope(answer);
      return undefined;
    });
    renderPage(<StatisticsPage />, '/statistics?id=5&tab=test');
    expect((await screen.findByTestId('chart-confusion')).dataset.points).toBe('2');
    expect(screen.getByTestId('chart-errors').dataset.points).toBe('1');
    expect(screen.queryByTestId('chart-pr')).toBeNull();
    cleanup();
    const segment = { task: 'segment', prCurves: [], f1Curve: [], f1CurvePerClass: [], errors: {}, confusion: null, suggested: null };
    answer = testAnalysis({ ...segment, confidence: { edges: [], tp: [], fp: [] }, perClass: [{ name: 'crack', precision: 0.9, recall: 0.8, f1: 0.85, support: 4, iou: 0.74 }] });
    renderPage(<StatisticsPage />, '/statistics?id=5&tab=test');
    expect((await screen.findByTestId('class-row-crack')).textContent).toContain('74.0 %');
    for (const chart of ['chart-pr', 'chart-f1', 'chart-confidence', 'chart-errors', 'chart-confusion']) expect(screen.queryByTestId(chart)).toBeNull();
    expect(screen.getByTestId('statistics-suggested').dataset.present).toBe('false');
  });

  it('says when the model has no finished run', async () => {
    fakeFetch((key) => (key === 'GET /api/models/5/tests' ? envelope({ items: [testRun({ status: 'failed' })], total: 1 }) : undefined));
    renderPage(<StatisticsPage />, '/statistics?id=5&tab=test');
    expect(await screen.findByTestId('statistics-no-runs')).toBeTruthy();
  });
});
