import type { TrainingEpochData } from '@loupe/contracts';
import type { ChartOption } from './echarts';

export interface Series {
  key: string;
  data: [number, number][];
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** One series per key that has at least one number; an epoch without the key (no validation) leaves a gap. */
export function seriesOf(history: readonly TrainingEpochData[], keys: readonly string[]): Series[] {
  return keys
    .map((key) => ({ key, data: history.filter((h) => num(h.metrics[key])).map((h) => [h.epoch, h.metrics[key] as number] as [number, number]) }))
    .filter((s) => s.data.length > 0);
}

const base = (legend: string[]): ChartOption => ({
  animation: false,
  tooltip: { trigger: 'axis', valueFormatter: (v) => (typeof v === 'number' ? v.toFixed(4) : String(v)) },
  legend: { top: 0, data: legend },
  grid: { left: 48, right: 16, top: 36, bottom: 32 },
});

/** Loss or metric curves over the epochs; `label` names each key in the user's language. */
export function curveOption(series: Series[], label: (key: string) => string, epochLabel: string, maxY?: number): ChartOption {
  return {
    ...base(series.map((s) => label(s.key))),
    xAxis: { type: 'value', name: epochLabel, nameLocation: 'middle', nameGap: 22, minInterval: 1, min: 1 },
    // Metrics (0 to 1) read as percentages, like the accuracy column and trend; losses as they are.
    yAxis: { type: 'value', min: 0, max: maxY, scale: maxY === undefined, axisLabel: maxY === 1 ? { formatter: (v: number) => `${Math.round(v * 100)} %` } : {} },
    series: series.map((s) => ({
      type: 'line',
      name: label(s.key),
      data: s.data,
      showSymbol: s.data.length < 40,
      connectNulls: true,
    })),
  };
}

/** Accuracy (the task's headline metric, in %) per version, oldest first. */
export function trendOption(points: { version: string; accuracy: number }[], name: string): ChartOption {
  return {
    ...base([name]),
    xAxis: { type: 'category', data: points.map((p) => p.version) },
    yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value} %' } },
    series: [{ type: 'line', name, data: points.map((p) => Number((p.accuracy * 100).toFixed(1))), label: { show: true, formatter: '{c} %' } }],
  };
}

export function prCurveOption(recall: number[], precision: number[], names: { recall: string; precision: string }): ChartOption {
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 16, bottom: 36 },
    xAxis: { type: 'value', name: names.recall, nameLocation: 'middle', nameGap: 22, min: 0, max: 1 },
    yAxis: { type: 'value', name: names.precision, min: 0, max: 1 },
    series: [{ type: 'line', name: names.precision, data: recall.map((r, i) => [r, precision[i] ?? 0]), showSymbol: false, areaStyle: { opacity: 0.15 } }],
  };
}

/** Bars of 0–1 figures per class, one series per figure (AP50 and AP50-95; precision and recall; IoU and Dice). */
export function classBarsOption(classes: { name: string; values: Record<string, number | null> }[], series: { key: string; name: string }[]): ChartOption {
  return {
    ...base(series.map((s) => s.name)),
    xAxis: { type: 'category', data: classes.map((c) => c.name), axisLabel: { interval: 0, rotate: classes.length > 8 ? 40 : 0 } },
    yAxis: { type: 'value', min: 0, max: 1 },
    series: series.map((s) => ({
      type: 'bar' as const,
      name: s.name,
      data: classes.map((c) => {
        const v = c.values[s.key];
        return typeof v === 'number' ? Number(v.toFixed(4)) : null;
      }),
    })),
  };
}

export function classApOption(classes: { name: string; ap50: number; ap50_95: number }[], names: { ap50: string; ap50_95: string }): ChartOption {
  return classBarsOption(
    classes.map((c) => ({ name: c.name, values: { ap50: c.ap50, ap50_95: c.ap50_95 } })),
    [
      { key: 'ap50', name: names.ap50 },
      { key: 'ap50_95', name: names.ap50_95 },
    ],
  );
}

/**
 * Rows are predicted classes, columns true classes (engine metrics.py); detection's last row and column are
 * background (the caller names it in `labels`), classification has none.
 */
export function confusionOption(matrix: number[][], labels: string[], names: { predicted: string; actual: string }): ChartOption {
  const data: [number, number, number][] = [];
  let max = 0;
  matrix.forEach((row, predicted) =>
    row.forEach((count, actual) => {
      data.push([actual, predicted, count]);
      max = Math.max(max, count);
    }),
  );
  return {
    animation: false,
    tooltip: { position: 'top' },
    grid: { left: 96, right: 16, top: 16, bottom: 72 },
    xAxis: { type: 'category', data: labels, name: names.actual, nameLocation: 'middle', nameGap: 52, splitArea: { show: true }, axisLabel: { interval: 0, rotate: labels.length > 6 ? 40 : 0 } },
    yAxis: { type: 'category', data: labels, name: names.predicted, nameLocation: 'middle', nameGap: 84, splitArea: { show: true }, inverse: true },
    visualMap: { min: 0, max: Math.max(max, 1), calculable: false, orient: 'horizontal', left: 'center', bottom: 0, show: false },
    series: [{ type: 'heatmap', data, label: { show: labels.length <= 12 } }],
  };
}
