import type { AnalysisSplit, DatasetAnalysis, Histogram } from '@loupe/contracts';
import type { ChartOption } from './echarts';

/** Split order and colours shared by every dataset chart (none = images in no split). */
export const SPLITS: readonly AnalysisSplit[] = ['train', 'val', 'test', 'none'];
const SPLIT_COLOR: Record<AnalysisSplit, string> = { train: '#1677ff', val: '#52c41a', test: '#faad14', none: '#bfbfbf' };

type PerClass = DatasetAnalysis['counts']['perClass'];

const grid = { left: 48, right: 16, top: 36, bottom: 40, containLabel: true };
const rotateFor = (n: number) => (n > 8 ? 40 : 0);

/** "0.1–0.2" for a bin; whole numbers stay whole, small ones keep what tells them apart. */
export function binLabel(lo: number, hi: number): string {
  const f = (v: number) => (Number.isInteger(v) ? String(v) : Math.abs(v) >= 10 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : String(Number(v.toPrecision(2))));
  return `${f(lo)}–${f(hi)}`;
}

/** Instances per class, one stacked bar per split (splits without any instance are left out). */
export function perClassOption(perClass: PerClass, split: (s: AnalysisSplit) => string, field: 'instances' | 'images' = 'instances'): ChartOption {
  const used = SPLITS.filter((s) => perClass.some((c) => c[field][s] > 0));
  return {
    animation: false,
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
    legend: { top: 0, data: used.map(split) },
    grid,
    xAxis: { type: 'category', data: perClass.map((c) => c.name), axisLabel: { interval: 0, rotate: rotateFor(perClass.length) } },
    yAxis: { type: 'value', minInterval: 1 },
    series: used.map((s) => ({ type: 'bar', name: split(s), stack: 'split', data: perClass.map((c) => c[field][s]), itemStyle: { color: SPLIT_COLOR[s] } })),
  };
}

/** Images per split, one bar each. */
export function perSplitOption(images: Record<AnalysisSplit, number>, split: (s: AnalysisSplit) => string): ChartOption {
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    grid,
    xAxis: { type: 'category', data: SPLITS.map(split) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'bar', data: SPLITS.map((s) => ({ value: images[s], itemStyle: { color: SPLIT_COLOR[s] } })), label: { show: true, position: 'top' } }],
  };
}

/** A histogram as bars, one per bin, labelled with the bin's range. */
export function histogramOption(h: Histogram, axis: string, color = '#1677ff'): ChartOption {
  const labels = h.counts.map((_, i) => binLabel(h.edges[i] ?? 0, h.edges[i + 1] ?? h.edges[i] ?? 0));
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    grid,
    xAxis: { type: 'category', data: labels, name: axis, nameLocation: 'middle', nameGap: 28, axisLabel: { rotate: rotateFor(labels.length) } },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'bar', data: [...h.counts], barCategoryGap: '4%', itemStyle: { color } }],
  };
}

/** Sum of a histogram's counts: the charts' `data-points` and "nothing to draw". */
export const histogramTotal = (h: Histogram | undefined) => (h ? h.counts.reduce((a, b) => a + b, 0) : 0);

/** Resolutions as points (width, height), the symbol growing with the square root of the count. */
export function resolutionOption(resolutions: DatasetAnalysis['resolutions'], names: { width: string; height: string; images: string }): ChartOption {
  const most = Math.max(1, ...resolutions.map((r) => r.count));
  return {
    animation: false,
    tooltip: { trigger: 'item', formatter: (p: unknown) => resolutionTip(p, names.images) },
    grid: { ...grid, right: 32 },
    xAxis: { type: 'value', name: names.width, nameLocation: 'middle', nameGap: 28, min: 0 },
    yAxis: { type: 'value', name: names.height, min: 0 },
    series: [
      {
        type: 'scatter',
        data: resolutions.map((r) => [r.width, r.height, r.count]),
        symbolSize: (v: number[]) => 8 + 32 * Math.sqrt((v[2] ?? 0) / most),
        itemStyle: { color: '#1677ff', opacity: 0.7 },
      },
    ],
  };
}

function resolutionTip(p: unknown, images: string): string {
  const v = (p as { value?: number[] }).value ?? [];
  return `${v[0]} × ${v[1]}: ${v[2]} ${images}`;
}

/**
 * Box centres on the analysis' rows×cols grid as a heatmap cell per grid square ([col, row, count]); row 0 is
 * the top of the image, as the axis is drawn inverted.
 */
export function heatmapCells(heatmap: NonNullable<DatasetAnalysis['boxes']>['heatmap']): [number, number, number][] {
  const cells: [number, number, number][] = [];
  for (let row = 0; row < heatmap.rows; row += 1)
    for (let col = 0; col < heatmap.cols; col += 1) cells.push([col, row, heatmap.cells[row * heatmap.cols + col] ?? 0]);
  return cells;
}

export function heatmapOption(heatmap: NonNullable<DatasetAnalysis['boxes']>['heatmap']): ChartOption {
  const cells = heatmapCells(heatmap);
  const max = Math.max(1, ...cells.map((c) => c[2]));
  const axis = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));
  return {
    animation: false,
    tooltip: { position: 'top' },
    grid: { left: 24, right: 24, top: 8, bottom: 48 },
    xAxis: { type: 'category', data: axis(heatmap.cols), axisLabel: { show: false }, splitArea: { show: true } },
    yAxis: { type: 'category', data: axis(heatmap.rows), axisLabel: { show: false }, inverse: true, splitArea: { show: true } },
    visualMap: { min: 0, max, calculable: true, orient: 'horizontal', left: 'center', bottom: 0, inRange: { color: ['#f0f5ff', '#1677ff', '#f5222d'] } },
    series: [{ type: 'heatmap', data: cells }],
  };
}
