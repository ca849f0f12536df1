import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import type { LabelData, ModelType, TestImageData, TestRunData } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import { training } from '@/pages/download/test/fixtures';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import TestPage from '../TestPage';
import { envelope, fakeFetch, testImage, testRun } from './fixtures';

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
  { id: 1, name: 'disc', color: '#ff0000', imageCount: 3 },
  { id: 2, name: 'square', color: '#00ff00', imageCount: 3 },
];

function open(type: ModelType, task: 'classify' | 'segment' | 'ocr', run: TestRunData, items: TestImageData[]) {
  useProject.getState().setProject({ id: '5', name: 'Shapes', code: 'M-5', type, sidebarType: 8, projectStatus: 'no' });
  fakeFetch((key, url) => {
    if (key === 'GET /api/models/5/tests') return envelope({ items: [run], total: 1 });
    if (key === 'GET /api/models/5/tests/9') return envelope(run);
    if (key === 'GET /api/models/5/tests/9/images') {
      const filter = url.searchParams.get('filter');
      const shown = filter === 'errors' ? items.filter((i) => i.fp > 0 || i.fn > 0) : items;
      return envelope({ items: shown, total: shown.length });
    }
    if (key === 'GET /api/models/5/trainings') return envelope({ items: [training({ task: task as 'detect' })], total: 1 });
    if (key === 'GET /api/models/5/labels') return envelope(labels);
    return undefined;
  });
}

const ttaHidden = () => screen.getByTestId('test-tta').closest('.ant-form-item')!.classList.contains('ant-form-item-hidden');

beforeEach(() => useSession.setState({ token: 'tok' }));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

describe('/test of a classification model', () => {
  const summary = {
    images: 3,
    inference_ms: 1.1,
    fps: 900,
    top1: 2 / 3,
    precision: 0.75,
    recall: 0.75,
    f1: 0.667,
    per_class: { disc: { precision: 0.5, recall: 1, f1: 0.667, images: 1 }, square: { precision: 1, recall: 0.5, f1: 0.667, images: 2 } },
    confusion_matrix: [
      [1, 1],
      [0, 1],
    ],
  };
  const right = testImage(201, { classification: { labelId: 2, confidence: 0.91, scores: { '1': 0.09, '2': 0.91 }, truthLabelId: 2, correct: true }, tp: 1 });
  const wrong = testImage(202, { classification: { labelId: 1, confidence: 0.7, scores: { '1': 0.7, '2': 0.3 }, truthLabelId: 2, correct: false }, fp: 1, fn: 1 });
  const unknown = testImage(203, { classification: { labelId: 1, confidence: 0.8, scores: { '1': 0.8, '2': 0.2 }, truthLabelId: null, correct: null } });

  it('shows each image’s class and confidence against its true class, right or wrong', async () => {
    open('classification', 'classify', testRun({ summary, imageCount: 3, tp: 2, fp: 1, fn: 1 }), [right, wrong, unknown]);
    renderPage(<TestPage />, '/test');
    const line = await screen.findByTestId('test-class-202');
    expect(line.dataset).toMatchObject({ predicted: '1', truth: '2', verdict: 'wrong', confidence: '0.7' });
    expect(line.textContent).toContain('disc0.70true: square');
    expect(screen.getByTestId('test-result-202').className).toContain('loupe-test-card-wrong');
    expect(screen.getByTestId('test-class-201').dataset.verdict).toBe('right');
    expect(screen.getByTestId('test-class-203').textContent).toContain('no true class');
    // No boxes to draw on a classified image.
    expect(screen.getByTestId('test-overlay-201').dataset.shapes).toBe('0');
    expect(screen.getByTestId('test-page').dataset.task).toBe('classify');
    // A classifier has no NMS: its run names the confidence only.
    expect(screen.getByTestId('test-run-settings').textContent).toBe('Confidence 0.25');
    // Its probabilities average over flipped and turned views: test-time augmentation is offered.
    await waitFor(() => expect(ttaHidden()).toBe(false));
  });

  it('measures top-1, precision and recall per class, and draws the confusion matrix without background', async () => {
    open('classification', 'classify', testRun({ summary, imageCount: 3, tp: 2, fp: 1, fn: 1 }), [right, wrong]);
    renderPage(<TestPage />, '/test');
    expect((await screen.findByTestId('test-metric-top1')).dataset.value).toBe('66.7 %');
    expect(screen.getByTestId('test-metric-correct').dataset.value).toBe('2');
    expect(screen.getByTestId('test-metric-wrong').dataset.value).toBe('1');
    expect(screen.queryByTestId('test-metric-map50')).toBeNull();
    const chart = screen.getByTestId('test-chart');
    expect(chart.dataset.series).toBe('precision recall');
    expect((chartOptions.get(chart) as { series: { name: string; data: unknown[] }[] }).series.map((s) => [s.name, s.data])).toEqual([
      ['Precision', [0.5, 1]],
      ['Recall', [1, 0.5]],
    ]);
    const confusion = screen.getByTestId('test-confusion');
    expect(confusion.dataset.points).toBe('2');
    expect((chartOptions.get(confusion) as { xAxis: { data: string[] } }).xAxis.data).toEqual(['disc', 'square']);
  });

  it('keeps the errors filter to the wrong images, and lists every class’s probability in the viewer', async () => {
    open('classification', 'classify', testRun({ summary, imageCount: 3, tp: 2, fp: 1, fn: 1 }), [right, wrong]);
    renderPage(<TestPage />, '/test');
    await screen.findByTestId('test-result-201');
    await click('test-filter-errors');
    await screen.findByTestId('test-results');
    expect(await screen.findByTestId('test-result-202')).toBeTruthy();
    expect(screen.queryByTestId('test-result-201')).toBeNull();
    await click('test-result-202');
    const scores = await screen.findAllByTestId('test-viewer-score');
    expect(scores.map((s) => [s.dataset.labelId, s.dataset.score])).toEqual([
      ['1', '0.7'],
      ['2', '0.3'],
    ]);
    expect(within(scores[1]!).getByText('true class')).toBeTruthy();
  });
});

describe('/test of a segmentation model', () => {
  const square = (x: number, s: number) => ({ kind: 'polygon', points: [[x, 10], [x + s, 10], [x + s, 10 + s], [x, 10 + s]] });
  const summary = {
    images: 1,
    instances: 2,
    mIoU: 0.62,
    dice: 0.76,
    pixel_accuracy: 0.97,
    precision: 0.8,
    recall: 0.72,
    f1: 0.76,
    per_class: { disc: { IoU: 0.7, dice: 0.82, precision: 0.8, recall: 0.85, pixels: 300 }, square: { IoU: 0.54, dice: 0.7, precision: 0.8, recall: 0.6, pixels: 200 } },
  };
  const image = testImage(301, {
    width: 64,
    height: 64,
    predictions: [
      { labelId: 1, geometry: square(10, 20), confidence: 0.9, matched: true },
      { labelId: 2, geometry: square(40, 10), confidence: 0.6, matched: false },
    ],
    groundTruth: [{ labelId: 1, geometry: square(11, 20), matched: true }],
    tp: 1,
    fp: 1,
  });

  it('fills the predicted masks in their label colour over the image, the annotations as outlines', async () => {
    open('SEGMENTATION', 'segment', testRun({ summary, imageCount: 1, tp: 1, fp: 1, fn: 0 }), [image]);
    renderPage(<TestPage />, '/test/segmentation');
    const overlay = await screen.findByTestId('test-overlay-301');
    expect(overlay.dataset).toMatchObject({ shapes: '3', filled: '2', dashed: '0' });
    const shapes = [...overlay.querySelectorAll('[data-testid="test-shape"]')].map((s) => [s.getAttribute('data-role'), s.getAttribute('fill'), s.getAttribute('fill-opacity')]);
    expect(shapes).toEqual([
      ['gt', 'none', null],
      ['tp', '#ff0000', '0.4'],
      ['fp', '#00ff00', '0.4'],
    ]);
    expect(screen.getByTestId('test-legend').textContent).toContain('Filled: predicted masks');
    // A segmenter averages its masks' probabilities over the views, pixel by pixel.
    await waitFor(() => expect(screen.getByTestId('version-option-11')).toBeTruthy());
    await waitFor(() => expect(ttaHidden()).toBe(false));
  });

  it('measures mIoU, Dice, pixel accuracy and the IoU of each class', async () => {
    open('SEGMENTATION', 'segment', testRun({ summary, imageCount: 1, tp: 1, fp: 1, fn: 0 }), [image]);
    renderPage(<TestPage />, '/test/segmentation');
    expect((await screen.findByTestId('test-metric-miou')).dataset.value).toBe('62.0 %');
    expect(screen.getByTestId('test-metric-pixel-accuracy').dataset.value).toBe('97.0 %');
    expect(screen.getByTestId('test-metric-instances').dataset.value).toBe('2');
    const chart = screen.getByTestId('test-chart');
    expect((chartOptions.get(chart) as { series: { name: string; data: unknown[] }[] }).series.map((s) => [s.name, s.data])).toEqual([
      ['IoU', [0.7, 0.54]],
      ['Dice', [0.82, 0.7]],
    ]);
    expect(screen.queryByTestId('test-confusion')).toBeNull();
  });
});

describe('/test of an OCR model', () => {
  const rbox = (cx: number, text: string) => ({ kind: 'rbox', cx, cy: 40, w: 80, h: 24, angle: 15, text });
  const image = testImage(401, {
    predictions: [
      { labelId: 1, geometry: rbox(100, 'LOT 42'), confidence: 0.9, matched: true },
      { labelId: 1, geometry: rbox(260, 'EXP 2O27'), confidence: 0.8, matched: false },
    ],
    groundTruth: [
      { labelId: 1, geometry: rbox(100, 'LOT 42'), matched: true },
      { labelId: 1, geometry: rbox(260, 'EXP 2027'), matched: false },
    ],
    tp: 1,
    fp: 1,
    fn: 1,
  });

  it('draws the text read next to each rotated box and the true text, a wrong reading in red', async () => {
    open('OCR', 'ocr', testRun({ summary: { images: 1, char_acc: 0.93, line_acc: 0.5, ned: 0.0625, precision: 0.5, recall: 0.5, f1: 0.5, mAP50: 1, mAP50_95: 0.8 }, imageCount: 1, tp: 1, fp: 1, fn: 1 }), [image]);
    renderPage(<TestPage />, '/test/ocr');
    const overlay = await screen.findByTestId('test-overlay-401');
    expect(overlay.dataset.textWrong).toBe('1');
    const tags = within(overlay).getAllByTestId('test-tag').map((g) => [g.textContent, g.getAttribute('data-text-wrong')]);
    expect(tags).toEqual([
      ['LOT 42', null],
      ['FN EXP 2027', null],
      ['LOT 42', 'false'],
      ['✗ EXP 2O27', 'true'],
    ]);
    expect(screen.getByTestId('test-metric-char-acc').dataset.value).toBe('93.0 %');
    expect(screen.getByTestId('test-metric-ned').dataset.value).toBe('0.063');
    await click('test-result-401');
    const texts = (await screen.findAllByTestId('test-viewer-text')).map((t) => t.textContent);
    expect(texts).toEqual(['LOT 42', 'EXP 2O27', 'LOT 42', 'EXP 2027']);
    // Mirrored text is not text: no test-time augmentation.
    expect(screen.getByTestId('version-option-11')).toBeTruthy();
    expect(ttaHidden()).toBe(true);
  });
});
