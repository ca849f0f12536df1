import { describe, expect, it } from 'vitest';
import type { TrainingDetailData } from '@loupe/contracts';
import { training } from '@/pages/training/test/fixtures';
import { usableVersions } from '@/pages/testing/api/trainingsApi';
import { overlaid } from '../ComparePage';
import { metricRows } from '../MetricsSideBySide';

const detail = (id: number, history: [number, number][]): TrainingDetailData => ({
  ...training({ id, version: `v${id}`, status: 'succeeded' }),
  history: history.map(([epoch, loss]) => ({ epoch, epochs: history.length, metrics: { loss, mAP50: loss / 2 }, etaS: null })),
  evaluation: null,
});

describe('versions (issue 31 item 4)', () => {
  it('the test and export forms start from the version in use: the default leads, the rest stay newest first', () => {
    const items = [1, 2, 3].map((id) => training({ id, serialNo: id, version: `v${id}`, status: 'succeeded', hasWeights: true }));
    const failed = training({ id: 4, serialNo: 4, version: 'v4', status: 'failed', hasWeights: false });
    expect(usableVersions([...items, failed]).map((v) => v.id)).toEqual([3, 2, 1]);
    expect(usableVersions([...items, failed], 1).map((v) => v.id)).toEqual([1, 3, 2]);
    // A default that is not usable (or gone) changes nothing.
    expect(usableVersions([...items, failed], 4).map((v) => v.id)).toEqual([3, 2, 1]);
  });

  it('/train2 draws each curve once per version, named by version and key', () => {
    const series = overlaid(detail(1, [[1, 0.9]]), detail(2, [[1, 0.8], [2, 0.5]]), () => ['loss', 'val_loss']);
    // val_loss has no number in these epochs: no empty series.
    expect(series).toEqual([
      { key: 'v1|loss', data: [[1, 0.9]] },
      { key: 'v2|loss', data: [[1, 0.8], [2, 0.5]] },
    ]);
  });

  it('metrics side by side: one row per figure at least one version reports, in task order', () => {
    const a = training({ id: 1, task: 'detect', summary: { mAP50: 0.5, mAP50_95: 0.2, precision: 0.7, recall: 0.6, f1: 0.65, inference_ms: 4 } });
    const b = training({ id: 2, task: 'detect', summary: { mAP50: 0.6, precision: 0.8 } });
    const rows = metricRows([a, b]);
    expect(rows.map((r) => r.key)).toEqual(['mAP50', 'mAP50_95', 'precision', 'recall', 'f1', 'inference_ms']);
    expect(rows[0]).toMatchObject({ format: 'percent', values: [0.5, 0.6] });
    expect(rows[1]!.values).toEqual([0.2, null]);
    expect(metricRows([training({ id: 3, summary: null })])).toEqual([]);
  });
});
