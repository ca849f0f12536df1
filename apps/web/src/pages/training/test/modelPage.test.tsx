import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { click, location, mockServer, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import './chartMock';
import ModelPage from '../model/ModelPage';
import { detail, openProject, training } from './fixtures';

const LIST = 'GET /api/models/5/trainings';

const summary = {
  dataset: 'dataset.json',
  total_epochs: 3,
  best_epoch: 2,
  total_time_s: 3725.4,
  precision: 0.9,
  recall: 0.8,
  f1: 0.847,
  mAP50: 0.81,
  mAP50_95: 0.52,
  best_val_loss: 1.23456,
  inference_ms: 12.34,
  fps: 81.04,
  gpu_memory_mb: null,
  model_size_mb: 6.2,
};

beforeEach(() => openProject());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

describe('/model', () => {
  it('says a version learned nothing usable, with its advice, and names it so in the version choice', async () => {
    const verdict = { level: 'unusable' as const, metric: 'mAP50', value: 0.008, unusableBelow: 0.05, weakBelow: 0.3, advice: [{ kind: 'imgsz' as const, imgsz: 320, boxPx: 4.8, target: 544 }] };
    const v1 = training({ id: 1, summary: { ...summary, mAP50: 0.008 }, accuracy: 0.008, verdict });
    mockServer({ [LIST]: { data: { items: [v1], total: 1 } }, 'GET /api/models/5/trainings/1': { data: detail(v1) } });
    renderPage(<ModelPage />, '/model');
    const alert = await screen.findByTestId('train-verdict');
    expect(screen.getByTestId('train-verdict-text').textContent).toBe('v1 finished, but its mAP50 is 0.8 % (below 5.0 %): its predictions cannot be used.');
    expect(screen.getByTestId('train-verdict-advice-imgsz').textContent).toContain('Use an image size of at least 544');
    expect(alert.getAttribute('data-level')).toBe('unusable');
    expect(screen.getByTestId('model-version-select').textContent).toContain('Learned nothing usable');
  });

  it('shows the SPEC §3 model info of the model version, and the per-class AP of the best epoch', async () => {
    const v1 = training({ id: 1, summary });
    const v2 = training({ id: 2, summary: { ...summary, precision: 0.95, gpu_memory_mb: 812.4 } });
    mockServer({
      [LIST]: { data: { items: [training({ id: 3, status: 'failed', accuracy: null }), v2, v1], total: 3 } },
      'GET /api/models/5/trainings/1': { data: detail(v1) },
      'GET /api/models/5/trainings/2': { data: detail(v2) },
    });
    useProject.getState().setVersion('M-5', 'v1');
    renderPage(<ModelPage />, '/model');

    expect((await screen.findByTestId('model-page')).getAttribute('data-version')).toBe('v1');
    const text = (key: string) => screen.getByTestId(`model-info-${key}`).textContent;
    await screen.findByTestId('model-info');
    expect(text('dataset')).toBe('40 labeled of 50 images, 2 labels');
    expect(text('totalEpochs')).toBe('3');
    expect(text('bestEpoch')).toBe('2');
    expect(text('totalTime')).toBe('1 h 02 min');
    expect([text('precision'), text('recall'), text('f1')]).toEqual(['90.0 %', '80.0 %', '84.7 %']);
    expect(text('bestValLoss')).toBe('1.2346');
    expect(text('inferenceMs')).toBe('12.3 ms');
    expect(text('fps')).toBe('81.0');
    expect(text('gpuMemory')).toBe('—');
    expect(text('modelSize')).toBe('6.2 MB');
    expect(screen.getByTestId('model-info-precision').getAttribute('data-value')).toBe('0.9');

    // Not in the summary: per-class AP from the best epoch's validation; PR curve and confusion matrix missing.
    expect(screen.getByTestId('model-class-ap').getAttribute('data-points')).toBe('2');
    expect(screen.getByTestId('model-class-ap-source').textContent).toContain('(2)');
    expect(screen.getByTestId('model-pr-curve').getAttribute('data-points')).toBe('0');
    expect(screen.getByTestId('model-confusion').getAttribute('data-points')).toBe('0');

    // Choosing another version makes it the model's version (the sidebar's finetuned_ tag).
    fireEvent.mouseDown(screen.getByTestId('model-version-select').querySelector('.ant-select-selector') ?? screen.getByTestId('model-version-select'));
    fireEvent.click(await screen.findByTitle(/^v2 ·/));
    await waitFor(() => expect(screen.getByTestId('model-page').getAttribute('data-version')).toBe('v2'));
    expect(useProject.getState().versions['M-5']).toBe('v2');
    await waitFor(() => expect(screen.getByTestId('model-info-gpuMemory').textContent).toBe('812 MB'));
  });

  it('draws the PR curve and confusion matrix when the server sends the evaluation', async () => {
    const v1 = training({ id: 1, summary });
    const evaluation = {
      per_class: { scratch: { AP50: 0.9, AP50_95: 0.6, instances: 10 }, dent: { AP50: 0.7, AP50_95: 0.4, instances: 5 } },
      pr_curve: { recall: Array.from({ length: 21 }, (_, i) => i / 20), precision: Array.from({ length: 21 }, (_, i) => 1 - i / 40) },
      confusion_matrix: [
        [9, 0, 1],
        [1, 4, 0],
        [0, 1, 0],
      ],
    };
    mockServer({
      [LIST]: { data: { items: [v1], total: 1 } },
      'GET /api/models/5/trainings/1': { data: { ...detail(v1), evaluation } },
    });
    renderPage(<ModelPage />, '/model');
    await screen.findByTestId('model-info');
    expect(screen.getByTestId('model-pr-curve').getAttribute('data-points')).toBe('21');
    expect(screen.getByTestId('model-class-ap').getAttribute('data-points')).toBe('2');
    expect(screen.queryByTestId('model-class-ap-source')).toBeNull();
    expect(screen.getByTestId('model-confusion').getAttribute('data-points')).toBe('3');
  });

  it('without a succeeded training, leads to /train', async () => {
    mockServer({ [LIST]: { data: { items: [], total: 0 } } });
    renderPage(<ModelPage />, '/model');
    expect((await screen.findByTestId('model-empty')).textContent).toContain('No training yet');
    await click('model-to-train');
    expect(await location()).toBe('/train/detection');
  });
});
