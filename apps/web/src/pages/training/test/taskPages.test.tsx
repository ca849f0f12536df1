import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import type { TrainingDetailData } from '@loupe/contracts';
import { click, mockServer, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { chartOptions } from './chartMock';
import ModelPage from '../model/ModelPage';
import TrainPage from '../train/TrainPage';
import { openProject, training } from './fixtures';

const LIST = 'GET /api/models/5/trainings';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

const history = (metrics: (epoch: number) => Record<string, unknown>, epochs = 3) =>
  Array.from({ length: epochs }, (_, i) => ({ epoch: i + 1, epochs, metrics: metrics(i + 1), etaS: null }));

describe('/train per task', () => {
  it('a segmentation model: no rotated-box choice or column, the accuracy is the mIoU, the curves mIoU, Dice and pixel accuracy', async () => {
    openProject({ type: 'SEGMENTATION' });
    const v1 = training({ id: 1, task: 'segment', accuracy: 0.61, summary: { mIoU: 0.61 } });
    const calls = mockServer({
      [LIST]: { data: { items: [v1], total: 1 } },
      'GET /api/models/5/trainings/1': {
        data: { ...v1, history: history((e) => ({ loss: 2 - e * 0.3, loss_ce: 1 - e * 0.2, loss_dice: 1 - e * 0.1, val_loss: 1.5, mIoU: 0.2 * e, dice: 0.25 * e, pixel_accuracy: 0.9, background_iou: 0.95 })), evaluation: null },
      },
      'POST /api/models/5/trainings': { data: training({ id: 2, task: 'segment', status: 'queued', phase: 'queued', accuracy: null }) },
      'GET /api/models/5/parameters': { data: { saved: {}, updatedAt: null } },
    });
    renderPage(<TrainPage />, '/train/segmentation');
    const accuracy = await screen.findByTestId('train-accuracy-1');
    expect([accuracy.textContent, accuracy.dataset.metric]).toEqual(['61.0 %', 'mIoU']);
    expect(screen.getAllByText('Accuracy (mIoU)').length).toBeGreaterThan(0);
    expect(screen.queryByText('Rotated boxes')).toBeNull();
    expect(screen.queryByTestId('train-rotated')).toBeNull();
    expect(screen.getByTestId('train-accuracy-trend').dataset.series).toBe('mIoU');
    await waitFor(() => expect(screen.getByTestId('train-curve-metrics').dataset.series).toBe('mIoU dice pixel_accuracy'));
    expect(screen.getByTestId('train-curve-loss').dataset.series).toBe('loss loss_ce loss_dice val_loss');
    const legend = (chartOptions.get(screen.getByTestId('train-curve-metrics')) as { legend: { data: string[] } }).legend.data;
    expect(legend).toEqual(['mIoU', 'Dice', 'Pixel accuracy']);

    // The server ignores the rotated-box type of a segmentation: none is sent.
    await click('train-start');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST' && c.url.endsWith('/trainings'))?.body).toEqual({}));
  });

  it('a classification model before its first training already names top-1 as its accuracy', async () => {
    openProject({ type: 'classification' });
    mockServer({ [LIST]: { data: { items: [], total: 0 } }, 'GET /api/models/5/parameters': { data: { saved: {}, updatedAt: null } } });
    renderPage(<TrainPage />, '/train');
    await screen.findByTestId('train-versions-empty');
    expect(screen.getAllByText('Accuracy (top-1)').length).toBeGreaterThan(0);
    expect(screen.getByTestId('train-accuracy-trend').dataset.series).toBe('top1');
  });
});

describe('/model per task', () => {
  const common = { total_epochs: 3, best_epoch: 3, precision: 0.9, recall: 0.8, f1: 0.85, inference_ms: 1.1, fps: 900, model_size_mb: 1.4 };

  it('a classifier: top-1, precision and recall per class, the confusion matrix without background', async () => {
    openProject({ type: 'classification' });
    const v1 = training({ id: 1, task: 'classify', accuracy: 0.83, summary: { ...common, top1: 0.83 } });
    const evaluation = {
      per_class: { square: { precision: 1, recall: 0.67, f1: 0.8, images: 3 }, disc: { precision: 0.75, recall: 1, f1: 0.86, images: 3 } },
      pr_curve: null,
      confusion_matrix: [
        [2, 0],
        [1, 3],
      ],
    };
    const detail: TrainingDetailData = { ...v1, history: [], evaluation };
    mockServer({ [LIST]: { data: { items: [v1], total: 1 } }, 'GET /api/models/5/trainings/1': { data: detail } });
    renderPage(<ModelPage />, '/model');
    expect((await screen.findByTestId('model-info-top1')).textContent).toBe('83.0 %');
    expect(screen.queryByTestId('model-info-mAP50')).toBeNull();
    expect(screen.queryByTestId('model-info-top5')).toBeNull();
    const bars = screen.getByTestId('model-class-pr');
    expect(bars.dataset).toMatchObject({ points: '2', series: 'precision recall' });
    expect((chartOptions.get(bars) as { series: { data: number[] }[] }).series.map((s) => s.data)).toEqual([
      [1, 0.75],
      [0.67, 1],
    ]);
    const confusion = screen.getByTestId('model-confusion');
    expect(confusion.dataset.points).toBe('2');
    expect((chartOptions.get(confusion) as { xAxis: { data: string[] } }).xAxis.data).toEqual(['square', 'disc']);
    expect(screen.queryByTestId('model-pr-curve')).toBeNull();
    expect(screen.getByTestId('model-version-select').textContent).toContain('Top-1 accuracy 83.0 %');
  });

  it('a segmenter: mIoU, Dice, pixel accuracy, and IoU and Dice per class from the best epoch when no evaluation came', async () => {
    openProject({ type: 'SEGMENTATION' });
    const v1 = training({ id: 1, task: 'segment', accuracy: 0.6, summary: { ...common, mIoU: 0.6, dice: 0.74, pixel_accuracy: 0.97 } });
    const detail: TrainingDetailData = {
      ...v1,
      history: history((e) => ({ mIoU: 0.2 * e, per_class: { disc: { IoU: 0.2 * e, dice: 0.3 * e, precision: 0.5, recall: 0.5, pixels: 100 } } })),
      evaluation: null,
    };
    mockServer({ [LIST]: { data: { items: [v1], total: 1 } }, 'GET /api/models/5/trainings/1': { data: detail } });
    renderPage(<ModelPage />, '/model');
    expect((await screen.findByTestId('model-info-mIoU')).textContent).toBe('60.0 %');
    expect(screen.getByTestId('model-info-dice').textContent).toBe('74.0 %');
    expect(screen.getByTestId('model-info-pixelAccuracy').dataset.value).toBe('0.97');
    const bars = screen.getByTestId('model-class-iou');
    expect(bars.dataset).toMatchObject({ points: '1', series: 'iou dice' });
    expect(screen.getByTestId('model-class-ap-source').textContent).toContain('(3)');
    expect(screen.queryByTestId('model-confusion')).toBeNull();
  });
});
