import { describe, expect, it } from 'vitest';
import { binLabel, heatmapCells, heatmapOption, histogramOption, histogramTotal, perClassOption, perSplitOption, resolutionOption } from '../charts/datasetOptions';
import { confidenceOption, confusionMatrixOption, errorKindsOf, errorsOption, f1CurveOption, prCurvesOption } from '../charts/testOptions';
import { analysisResult, testAnalysis } from './fixtures';

// The builders' output is plain data: read its series the way ECharts would.
type Series = { type: string; name?: string; data: unknown[]; stack?: string; lineStyle?: { width: number }; markLine?: { data: { xAxis: number }[] } };
const seriesOf = (option: object) => (option as { series: Series[] }).series;
const categories = (option: object, axis: 'xAxis' | 'yAxis' = 'xAxis') => (option as Record<string, { data: string[] }>)[axis]!.data;

describe('dataset chart builders', () => {
  const result = analysisResult();
  const boxes = result.boxes!;

  it('stacks instances per class by split, leaving out the splits nobody is in', () => {
    const option = perClassOption(result.counts.perClass, (s) => s.toUpperCase());
    expect(categories(option)).toEqual(['dent', 'scratch']);
    const series = seriesOf(option);
    expect(series.map((s) => s.name)).toEqual(['TRAIN', 'VAL']);
    expect(series.every((s) => s.stack === 'split')).toBe(true);
    expect(series.map((s) => s.data)).toEqual([
      [5, 2],
      [2, 0],
    ]);
  });

  it('draws one bar per split for images and a bin per histogram count', () => {
    const split = perSplitOption(result.counts.perSplit.images, (s) => s);
    expect(categories(split)).toEqual(['train', 'val', 'test', 'none']);
    expect((seriesOf(split)[0]!.data as { value: number }[]).map((d) => d.value)).toEqual([4, 1, 0, 1]);
    const width = histogramOption(boxes.width, 'px');
    expect(categories(width)).toEqual(['0–8', '8–16', '16–32']);
    expect(seriesOf(width)[0]!.data).toEqual([2, 3, 4]);
    expect(histogramTotal(boxes.width)).toBe(boxes.count);
    expect(categories(histogramOption(boxes.areaRel, 'share'))).toEqual(['0–0.01', '0.01–0.1', '0.1–1']);
    expect(binLabel(0.25, 1.5)).toBe('0.25–1.5');
  });

  it('lays the heatmap out row-major, one cell per grid square, scaled to the fullest', () => {
    expect(heatmapCells(boxes.heatmap)).toEqual([
      [0, 0, 4],
      [1, 0, 0],
      [2, 0, 0],
      [0, 1, 0],
      [1, 1, 0],
      [2, 1, 5],
    ]);
    const option = heatmapOption(boxes.heatmap) as { visualMap: { max: number }; xAxis: { data: string[] }; yAxis: { data: string[] } };
    expect(option.visualMap.max).toBe(5);
    expect(option.xAxis.data).toHaveLength(3);
    expect(option.yAxis.data).toHaveLength(2);
  });

  it('plots each resolution once, the most frequent the largest', () => {
    const option = resolutionOption(result.resolutions, { width: 'w', height: 'h', images: 'images' });
    const [scatter] = seriesOf(option) as (Series & { symbolSize: (v: number[]) => number })[];
    expect(scatter!.type).toBe('scatter');
    expect(scatter!.data).toEqual([
      [640, 480, 5],
      [1280, 720, 1],
    ]);
    expect(scatter!.symbolSize([640, 480, 5])).toBeGreaterThan(scatter!.symbolSize([1280, 720, 1]));
  });
});

describe('test chart builders', () => {
  const data = testAnalysis();

  it('draws a PR line per class and F1 per class under the bold overall curve, marking the confidence', () => {
    expect(seriesOf(prCurvesOption(data.prCurves, { recall: 'R', precision: 'P' })).map((s) => [s.name, s.data.length])).toEqual([
      ['dent', 2],
      ['scratch', 1],
    ]);
    const f1 = seriesOf(f1CurveOption(data.f1Curve, data.f1CurvePerClass, 0.25, { overall: 'All', conf: 'c', f1: 'F1' }));
    expect(f1.map((s) => s.name)).toEqual(['All', 'dent']);
    expect(f1[0]!.lineStyle!.width).toBeGreaterThan(f1[1]!.lineStyle!.width);
    expect(f1[0]!.markLine!.data).toEqual([{ xAxis: 0.25 }]);
  });

  it('puts true and false positives over the same confidence bins', () => {
    const option = confidenceOption(data.confidence, { tp: 'TP', fp: 'FP', conf: 'c' });
    expect(categories(option)).toEqual(['0–0.5', '0.5–1']);
    expect(seriesOf(option).map((s) => s.data)).toEqual([
      [1, 5],
      [3, 1],
    ]);
  });

  it('shows the error kinds the answer has, in the contract order', () => {
    expect(errorKindsOf({ wrongClass: 3 })).toEqual(['wrongClass']);
    const option = errorsOption(data.errors, (k) => k);
    expect(categories(option)).toEqual(['falsePositive', 'missed', 'wrongClass', 'poorLocalisation']);
    expect(seriesOf(option)[0]!.data).toEqual([1, 4, 0, 2]);
  });

  it('draws the classification confusion matrix cell by cell, and nothing for other tasks', () => {
    expect(confusionMatrixOption(null, { predicted: 'p', actual: 'a' })).toBeNull();
    const option = confusionMatrixOption({ labels: ['ok', 'ng'], matrix: [[5, 1], [2, 7]] }, { predicted: 'p', actual: 'a' })!;
    expect(categories(option)).toEqual(['ok', 'ng']);
    // [actual column, predicted row, count]: rows are predicted, columns true.
    expect(seriesOf(option)[0]!.data).toEqual([
      [0, 0, 5],
      [1, 0, 1],
      [0, 1, 2],
      [1, 1, 7],
    ]);
  });
});
