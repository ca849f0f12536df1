import { describe, expect, it } from 'vitest';
import { classStats, confusionOf, hasGroundTruth, runMetrics } from '../results/classStats';
import { groundTruthMetrics } from '../results/TestMetrics';

describe('classStats', () => {
  it('reads TP on the diagonal, FP along the row and FN down the column of the confusion matrix', () => {
    const summary = {
      per_class: { dent: { AP50: 0.8, AP50_95: 0.5, instances: 10 }, scratch: { AP50: 0.6, AP50_95: 0.3, instances: 5 } },
      // rows predicted (dent, scratch, background), columns true (dent, scratch, background)
      confusion_matrix: [
        [8, 1, 2],
        [0, 3, 1],
        [2, 1, 0],
      ],
    };
    expect(classStats(summary)).toEqual([
      { name: 'dent', tp: 8, fp: 3, fn: 2, precision: 8 / 11, recall: 0.8, ap50: 0.8, iou: null, dice: null, instances: 10 },
      { name: 'scratch', tp: 3, fp: 1, fn: 2, precision: 0.75, recall: 0.6, ap50: 0.6, iou: null, dice: null, instances: 5 },
    ]);
  });

  it('keeps AP without a usable matrix and leaves the ratios unknown', () => {
    const stats = classStats({ per_class: { dent: { AP50: 0.5, instances: 2 } }, confusion_matrix: [[1]] });
    expect(stats).toEqual([{ name: 'dent', tp: 0, fp: 0, fn: 0, precision: null, recall: null, ap50: 0.5, iou: null, dice: null, instances: 2 }]);
  });

  it('reads a classifier\'s square matrix (no background) with its own per-class precision and recall', () => {
    const summary = {
      per_class: { disc: { precision: 0.75, recall: 1, f1: 0.857, images: 3 }, square: { precision: 1, recall: 0.667, f1: 0.8, images: 3 } },
      // rows predicted (disc, square), columns true (disc, square): one square called a disc
      confusion_matrix: [
        [3, 1],
        [0, 2],
      ],
    };
    expect(confusionOf(summary, 'classify')).toEqual({ matrix: summary.confusion_matrix, names: ['disc', 'square'], background: false });
    // The same matrix read as detection's would need a background row: it does not fit, so it is not used.
    expect(confusionOf(summary, 'detect')).toBeNull();
    expect(classStats(summary, 'classify')).toEqual([
      { name: 'disc', tp: 3, fp: 1, fn: 0, precision: 0.75, recall: 1, ap50: null, iou: null, dice: null, instances: 3 },
      { name: 'square', tp: 2, fp: 0, fn: 1, precision: 1, recall: 0.667, ap50: null, iou: null, dice: null, instances: 3 },
    ]);
  });

  it('reads a segmenter\'s per-class IoU and Dice, with no matrix', () => {
    const summary = { per_class: { disc: { IoU: 0.8, dice: 0.889, precision: 0.9, recall: 0.88, pixels: 1200 } }, confusion_matrix: [[1, 0], [0, 1]] };
    expect(confusionOf(summary, 'segment')).toBeNull();
    expect(classStats(summary, 'segment')).toEqual([{ name: 'disc', tp: 0, fp: 0, fn: 0, precision: 0.9, recall: 0.88, ap50: null, iou: 0.8, dice: 0.889, instances: 1200 }]);
  });

  it('has nothing to say without per-class figures', () => {
    expect(classStats(null)).toEqual([]);
    expect(classStats({ detections: 3 })).toEqual([]);
  });
});

describe('runMetrics', () => {
  it('knows a run had ground truth by its precision or mAP', () => {
    expect(hasGroundTruth(runMetrics({ detections: 4, inference_ms: 3 }))).toBe(false);
    const m = runMetrics({ precision: 0.9, recall: 0.8, f1: 0.85, mAP50: 0.7, suggested_conf: 0.31 });
    expect(hasGroundTruth(m)).toBe(true);
    expect(m.suggestedConf).toBe(0.31);
    // Issue 31: no prediction matched any box (F1 0 at every confidence): no suggestion, not "1.00, use it".
    expect(runMetrics({ precision: 0, recall: 0, f1: 0, mAP50: 0, suggested_conf: 1 }).suggestedConf).toBeNull();
    expect(runMetrics({ f1: 0, mAP50: 0.2, best_f1: 0, suggested_conf: 1 }).suggestedConf).toBeNull();
    expect(runMetrics({ f1: 0, mAP50: 0.002, suggested_conf: 0.05 }).suggestedConf).toBe(0.05);
    expect(hasGroundTruth(runMetrics({ images: 6, top1: 0.5 }))).toBe(true);
    expect(hasGroundTruth(runMetrics({ images: 6, instances: 4, mIoU: 0.4 }))).toBe(true);
    expect(hasGroundTruth(runMetrics({ images: 6, instances: 4 }))).toBe(false);
  });
});

describe('groundTruthMetrics', () => {
  const counts = { tp: 5, fp: 1, fn: 1 };
  const ids = (task: Parameters<typeof groundTruthMetrics>[0], summary: Record<string, unknown>) => groundTruthMetrics(task, runMetrics(summary), counts).map(([id, , v]) => `${id}=${v}`);

  it('shows each task its own figures', () => {
    expect(ids('detect', { precision: 0.9, recall: 0.8, f1: 0.85, mAP50: 0.7, mAP50_95: 0.4 })).toEqual([
      'precision=90.0 %', 'recall=80.0 %', 'f1=85.0 %', 'map50=70.0 %', 'map50-95=40.0 %', 'tp=5', 'fp=1', 'fn=1',
    ]);
    // A classified image is right or wrong: no FN column, and top-5 only when the engine sent it (> 5 classes).
    expect(ids('classify', { top1: 0.833, precision: 0.875, recall: 0.833, f1: 0.829 })).toEqual([
      'top1=83.3 %', 'precision=87.5 %', 'recall=83.3 %', 'f1=82.9 %', 'correct=5', 'wrong=1',
    ]);
    expect(ids('classify', { top1: 0.5, top5: 0.9 }).slice(0, 2)).toEqual(['top1=50.0 %', 'top5=90.0 %']);
    // Multi-label: exact-match accuracy and mAP instead of top-1.
    expect(ids('classify', { multi_label: true, accuracy: 0.4, mAP: 0.7, precision: 0.8, recall: 0.6, f1: 0.69 }).slice(0, 3)).toEqual(['exact-match=40.0 %', 'map=70.0 %', 'precision=80.0 %']);
    expect(ids('segment', { mIoU: 0.61, dice: 0.75, pixel_accuracy: 0.97, precision: 0.8, recall: 0.7 })).toEqual([
      'miou=61.0 %', 'dice=75.0 %', 'pixel-accuracy=97.0 %', 'precision=80.0 %', 'recall=70.0 %', 'tp=5', 'fp=1', 'fn=1',
    ]);
    expect(ids('ocr', { char_acc: 0.95, line_acc: 0.8, ned: 0.031, mAP50: 0.9 }).slice(0, 3)).toEqual(['char-acc=95.0 %', 'line-acc=80.0 %', 'ned=0.031']);
  });
});
