import { describe, expect, it } from 'vitest';
import type { TrainingEpochData } from '@loupe/contracts';
import { curveOption, seriesOf } from '../charts/options';
import { evaluationOf } from '../model/evaluation';
import { modelInfoFields } from '../model/ModelInfo';
import { HEADLINE, lossKeys, METRIC_CURVES, taskOf } from '../shared/tasks';
import { detail, training } from './fixtures';

const t = (key: string) => key;
const epochs = (metrics: Record<string, unknown>[]): TrainingEpochData[] => metrics.map((m, i) => ({ epoch: i + 1, epochs: metrics.length, metrics: m, etaS: null }));

describe('taskOf', () => {
  it('takes the training’s task, else the one the model type trains', () => {
    expect(taskOf('segment')).toBe('segment');
    expect(taskOf('obb', 'DETECTION')).toBe('obb');
    expect(taskOf(undefined, 'classification')).toBe('classify');
    expect(taskOf(null, 'SEGMENTATION')).toBe('segment');
    expect(taskOf(undefined, 'OCR')).toBe('ocr');
    expect(taskOf('ocr')).toBe('ocr');
    // An unknown task or type draws as detection, the platform's first task.
    expect(taskOf('pose', 'FPG')).toBe('detect');
  });

  it('names the server’s accuracy key per task', () => {
    expect(HEADLINE).toEqual({ detect: 'mAP50', obb: 'mAP50', classify: 'top1', segment: 'mIoU', ocr: 'char_acc' });
  });
});

describe('curves per task', () => {
  const classify = epochs([
    { loss: 0.7, loss_cls: 0.7, val_loss: 0.69, top1: 0.5, precision: 0.25, recall: 0.5, lr: 0.01, per_class: {} },
    { loss: 0.5, loss_cls: 0.5, val_loss: 0.4, top1: 0.83, precision: 0.88, recall: 0.83, lr: 0.01, per_class: {} },
  ]);
  const segment = epochs([{ loss: 1.2, loss_ce: 0.7, loss_dice: 0.5, val_loss: 1.1, mIoU: 0.2, dice: 0.3, pixel_accuracy: 0.9, background_iou: 0.88 }]);

  it('draws classification’s top-1 (top-5 only when sent) and its loss parts, never mAP', () => {
    expect(seriesOf(classify, METRIC_CURVES.classify).map((s) => s.key)).toEqual(['top1', 'precision', 'recall']);
    expect(lossKeys(classify)).toEqual(['loss', 'loss_cls', 'val_loss']);
    expect(seriesOf(classify, METRIC_CURVES.classify)[0]!.data).toEqual([
      [1, 0.5],
      [2, 0.83],
    ]);
  });

  it('draws segmentation’s mIoU, Dice and pixel accuracy, and its cross-entropy and Dice losses', () => {
    expect(seriesOf(segment, METRIC_CURVES.segment).map((s) => s.key)).toEqual(['mIoU', 'dice', 'pixel_accuracy']);
    expect(seriesOf(segment, lossKeys(segment)).map((s) => s.key)).toEqual(['loss', 'loss_ce', 'loss_dice', 'val_loss']);
  });

  it('draws OCR’s character and line accuracy, edit distance and the text detector’s mAP50', () => {
    const ocr = epochs([{ loss: 2, loss_box: 1, loss_ctc: 0.8, char_acc: 0.6, line_acc: 0.2, ned: 0.3, mAP50: 0.4, mAP50_95: 0.2 }]);
    expect(seriesOf(ocr, METRIC_CURVES.ocr).map((s) => s.key)).toEqual(['char_acc', 'line_acc', 'ned', 'mAP50']);
    expect(lossKeys(ocr)).toEqual(['loss', 'loss_box', 'loss_ctc', 'val_loss']);
  });

  it('keeps detection’s curves as they were', () => {
    const det = epochs([{ loss: 3, loss_box: 1, loss_cls: 1, loss_dfl: 1, val_loss: 2, mAP50: 0.2, mAP50_95: 0.1, precision: 0.3, recall: 0.2 }]);
    expect(lossKeys(det)).toEqual(['loss', 'loss_box', 'loss_cls', 'loss_dfl', 'val_loss']);
    const option = curveOption(seriesOf(det, METRIC_CURVES.detect), (k) => k, 'epoch', 1) as { series: { name: string }[] };
    expect(option.series.map((s) => s.name)).toEqual(['mAP50', 'mAP50_95', 'precision', 'recall']);
  });
});

describe('model info per task', () => {
  const common = { total_epochs: 3, best_epoch: 2, precision: 0.9, recall: 0.8, f1: 0.85, inference_ms: 1.2, fps: 800, model_size_mb: 1.3 };
  const ids = (task: string, summary: Record<string, unknown>) => modelInfoFields(detail(training({ task: task as 'detect', summary })), t).map(([id]) => id);

  it('shows top-1 for a classifier, top-5 only when the engine sent it', () => {
    const fields = ids('classify', { ...common, top1: 0.83 });
    expect(fields).toContain('top1');
    expect(fields).not.toContain('top5');
    expect(fields).not.toContain('mAP50');
    expect(ids('classify', { ...common, top1: 0.5, top5: 0.9 })).toContain('top5');
  });

  it('shows mIoU, Dice and pixel accuracy for a segmenter, after precision, recall and F1', () => {
    const fields = ids('segment', { ...common, mIoU: 0.6, dice: 0.75, pixel_accuracy: 0.97 });
    expect(fields.slice(fields.indexOf('f1') + 1, fields.indexOf('f1') + 4)).toEqual(['mIoU', 'dice', 'pixelAccuracy']);
    const d = modelInfoFields(detail(training({ task: 'segment', summary: { ...common, mIoU: 0.6, dice: 0.75, pixel_accuracy: 0.97 } })), t);
    expect(d.find(([id]) => id === 'pixelAccuracy')!.slice(1)).toEqual([0.97, '97.0 %']);
  });

  it('shows OCR’s accuracies, the edit distance as a number, and the detector’s mAP', () => {
    const d = modelInfoFields(detail(training({ task: 'ocr' as 'detect', summary: { ...common, char_acc: 0.95, line_acc: 0.8, ned: 0.0312, mAP50: 0.9, mAP50_95: 0.6 } })), t);
    expect(d.filter(([id]) => ['charAcc', 'lineAcc', 'ned', 'mAP50'].includes(id)).map(([id, , text]) => `${id}=${text}`)).toEqual([
      'charAcc=95.0 %',
      'lineAcc=80.0 %',
      'ned=0.031',
      'mAP50=90.0 %',
    ]);
  });
});

describe('evaluation per task', () => {
  it('reads a classifier’s per-class precision and recall and its square confusion matrix', () => {
    const evaluation = {
      per_class: { disc: { precision: 0.75, recall: 1, f1: 0.86, images: 3 }, square: { precision: 1, recall: 0.67, f1: 0.8, images: 3 } },
      pr_curve: null,
      confusion_matrix: [
        [3, 1],
        [0, 2],
      ],
    };
    const e = evaluationOf({ ...detail(training({ task: 'classify' })), evaluation }, 'classify');
    expect(e.perClass).toEqual([
      { name: 'disc', values: { precision: 0.75, recall: 1, f1: 0.86 }, count: 3 },
      { name: 'square', values: { precision: 1, recall: 0.67, f1: 0.8 }, count: 3 },
    ]);
    expect(e.confusion).toEqual({ matrix: evaluation.confusion_matrix, names: ['disc', 'square'], background: false });
    // Read as detection's, the matrix lacks its background row: not drawn rather than drawn wrong.
    expect(evaluationOf({ ...detail(training()), evaluation }).confusion).toBeNull();
  });

  it('reads a segmenter’s per-class IoU and Dice, and no confusion matrix', () => {
    const evaluation = { per_class: { disc: { IoU: 0.7, dice: 0.82, precision: 0.8, recall: 0.85, pixels: 900 } }, pr_curve: null, confusion_matrix: [[1]] };
    const e = evaluationOf({ ...detail(training({ task: 'segment' })), evaluation }, 'segment');
    expect(e.perClass).toEqual([{ name: 'disc', values: { iou: 0.7, dice: 0.82, precision: 0.8, recall: 0.85 }, count: 900 }]);
    expect(e.confusion).toBeNull();
  });
});
