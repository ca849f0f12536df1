import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import type { TrainingDetailData } from '@loupe/contracts';
import { mockServer, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import ModelPage from '../model/ModelPage';
import { baselineOf } from '../model/Baseline';
import { openProject, training } from './fixtures';

const LIST = 'GET /api/models/5/trainings';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

const common = { total_epochs: 3, best_epoch: 3, precision: 0.9, recall: 0.8, f1: 0.85, inference_ms: 1.1, fps: 900, model_size_mb: 1.4 };

function ocrModel(summary: Record<string, unknown>) {
  openProject({ type: 'OCR' });
  const v1 = training({ id: 1, task: 'ocr', accuracy: summary.char_acc as number, summary: { ...common, ...summary } });
  const detail: TrainingDetailData = { ...v1, history: [], evaluation: null };
  mockServer({ [LIST]: { data: { items: [v1], total: 1 } }, 'GET /api/models/5/trainings/1': { data: detail } });
  renderPage(<ModelPage />, '/model');
}

describe('/model: the OCR model against the zero-shot reader', () => {
  it('says the reader, both character accuracies on the validation images, and that the model is better', async () => {
    ocrModel({ char_acc: 0.93, line_acc: 0.7, ned: 0.05, baseline_char_acc: 0.4, baseline_line_acc: 0.1, baseline_reader: 'tesseract 5.3.0' });
    const alert = await screen.findByTestId('model-baseline');
    expect(alert.dataset).toMatchObject({ verdict: 'better', baseline: '0.4', model: '0.93' });
    expect(alert.textContent).toContain('Zero-shot reader (tesseract 5.3.0): 40.0 % character accuracy on your validation images; this model: 93.0 %');
    expect(alert.textContent).toContain('Better than the zero-shot reader by 53.0 points');
    expect(alert.className).toContain('success');
  });

  it('warns when the trained model reads worse than the zero-shot reader', async () => {
    ocrModel({ char_acc: 0.12, line_acc: 0, ned: 0.9, baseline_char_acc: 0.6, baseline_line_acc: 0.2, baseline_reader: 'tesseract 5.3.0' });
    const alert = await screen.findByTestId('model-baseline');
    expect(alert.dataset.verdict).toBe('worse');
    expect(alert.textContent).toContain('Worse than the zero-shot reader by 48.0 points');
    expect(alert.className).toContain('warning');
  });

  it('shows nothing when the training had no baseline (no tesseract on the server)', async () => {
    ocrModel({ char_acc: 0.93, line_acc: 0.7, ned: 0.05 });
    await screen.findByTestId('model-info-charAcc');
    expect(screen.queryByTestId('model-baseline')).toBeNull();
  });

  it('baselineOf: equal within the shown precision, null without a reader or a number', () => {
    expect(baselineOf({ char_acc: 0.5, baseline_char_acc: 0.5004, baseline_reader: 'tesseract 5.3.0' })?.verdict).toBe('equal');
    expect(baselineOf({ char_acc: 0.5, baseline_char_acc: 0.4 })).toBeNull();
    expect(baselineOf({ char_acc: null, baseline_char_acc: 0.4, baseline_reader: 'tesseract 5.3.0' })).toBeNull();
    expect(baselineOf(null)).toBeNull();
  });
});
