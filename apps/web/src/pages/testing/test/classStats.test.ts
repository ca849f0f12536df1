import { describe, expect, it } from 'vitest';
import { classStats, hasGroundTruth, runMetrics } from '../results/classStats';

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
      { name: 'dent', tp: 8, fp: 3, fn: 2, precision: 8 / 11, recall: 0.8, ap50: 0.8, instances: 10 },
      { name: 'scratch', tp: 3, fp: 1, fn: 2, precision: 0.75, recall: 0.6, ap50: 0.6, instances: 5 },
    ]);
  });

  it('keeps AP without a usable matrix and leaves the ratios unknown', () => {
    const stats = classStats({ per_class: { dent: { AP50: 0.5, instances: 2 } }, confusion_matrix: [[1]] });
    expect(stats).toEqual([{ name: 'dent', tp: 0, fp: 0, fn: 0, precision: null, recall: null, ap50: 0.5, instances: 2 }]);
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
  });
});
