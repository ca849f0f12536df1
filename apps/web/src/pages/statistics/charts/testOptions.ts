import { ErrorKinds, type ErrorKind, type TestAnalysisData } from '@loupe/contracts';
import { confusionOption } from '@/pages/training/charts/options';
import type { ChartOption } from './echarts';
import { binLabel } from './datasetOptions';

type Curve = { name: string; points: [number, number][] };

const grid = { left: 48, right: 16, top: 36, bottom: 40, containLabel: true };
const legend = (names: string[]) => ({ top: 0, type: 'scroll' as const, data: names });
const unitAxis = (name: string) => ({ type: 'value' as const, name, nameLocation: 'middle' as const, nameGap: 28, min: 0, max: 1 });

/** Precision (y) against recall (x), one line per class. */
export function prCurvesOption(curves: readonly Curve[], names: { recall: string; precision: string }): ChartOption {
  return {
    animation: false,
    tooltip: { trigger: 'item' },
    legend: legend(curves.map((c) => c.name)),
    grid,
    xAxis: unitAxis(names.recall),
    yAxis: { type: 'value', name: names.precision, min: 0, max: 1 },
    series: curves.map((c) => ({ type: 'line', name: c.name, data: c.points.map(([r, p]) => [r, p]), showSymbol: false, step: 'end' })),
  };
}

/**
 * F1 against confidence: the overall curve bold and on top, then one thin line per class, and the confidence
 * the figures are at as a dashed mark.
 */
export function f1CurveOption(overall: TestAnalysisData['f1Curve'], perClass: readonly Curve[], conf: number, names: { overall: string; conf: string; f1: string }): ChartOption {
  const all = { type: 'line' as const, name: names.overall, data: overall.map(([c, f]) => [c, f]), showSymbol: false, z: 3, lineStyle: { width: 4 }, markLine: confMark(conf) };
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: legend([names.overall, ...perClass.map((c) => c.name)]),
    grid,
    xAxis: unitAxis(names.conf),
    yAxis: { type: 'value', name: names.f1, min: 0, max: 1 },
    series: [all, ...perClass.map((c) => ({ type: 'line' as const, name: c.name, data: c.points.map(([x, y]) => [x, y]), showSymbol: false, lineStyle: { width: 1 } }))],
  };
}

const confMark = (conf: number) => ({ symbol: 'none', silent: true, lineStyle: { type: 'dashed' as const, color: '#8c8c8c' }, data: [{ xAxis: conf }], label: { formatter: conf.toFixed(2) } });

/** Confidence histograms of true and false positives side by side over the same bins. */
export function confidenceOption(h: TestAnalysisData['confidence'], names: { tp: string; fp: string; conf: string }): ChartOption {
  const labels = h.tp.map((_, i) => binLabel(h.edges[i] ?? 0, h.edges[i + 1] ?? 1));
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: legend([names.tp, names.fp]),
    grid,
    xAxis: { type: 'category', data: labels, name: names.conf, nameLocation: 'middle', nameGap: 28, axisLabel: { rotate: labels.length > 10 ? 40 : 0 } },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      { type: 'bar', name: names.tp, data: [...h.tp], itemStyle: { color: '#52c41a' } },
      { type: 'bar', name: names.fp, data: [...h.fp], itemStyle: { color: '#f5222d' } },
    ],
  };
}

/** The error kinds present in the answer, in the contract's order. */
export const errorKindsOf = (errors: TestAnalysisData['errors']): ErrorKind[] => ErrorKinds.filter((k) => typeof errors[k] === 'number');

export function errorsOption(errors: TestAnalysisData['errors'], label: (k: ErrorKind) => string): ChartOption {
  const kinds = errorKindsOf(errors);
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    grid,
    xAxis: { type: 'category', data: kinds.map(label), axisLabel: { interval: 0 } },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'bar', data: kinds.map((k) => errors[k] ?? 0), itemStyle: { color: '#fa8c16' }, label: { show: true, position: 'top' } }],
  };
}

/** The classification confusion matrix (rows predicted, columns true), or null for other tasks. */
export function confusionMatrixOption(confusion: TestAnalysisData['confusion'], names: { predicted: string; actual: string }): ChartOption | null {
  if (!confusion || confusion.labels.length === 0) return null;
  return confusionOption(confusion.matrix, confusion.labels, names);
}
