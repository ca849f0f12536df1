import type { AgentTrial } from '@loupe/contracts';
import type { ChartOption } from '@/pages/training/charts/echarts';

export interface TrialChartNames {
  trial: string;
  score: string;
  complete: string;
  pruned: string;
  best: string;
}

type Point = [number, number];

const scored = (t: AgentTrial): t is AgentTrial & { score: number } => typeof t.score === 'number' && Number.isFinite(t.score);

/**
 * The best score reached up to each trial, by trial number. Only complete trials count: a pruned trial's score is
 * the one it had when it was stopped, which no full training confirmed.
 */
export function bestSoFar(trials: readonly AgentTrial[]): Point[] {
  const done = trials.filter((t) => t.state === 'complete' && scored(t)).sort((a, b) => a.number - b.number);
  let best = Number.NEGATIVE_INFINITY;
  return done.map((t) => {
    best = Math.max(best, t.score!);
    return [t.number, best];
  });
}

const pointsOf = (trials: readonly AgentTrial[], state: AgentTrial['state']): Point[] =>
  trials.filter((t) => t.state === state && scored(t)).map((t) => [t.number, t.score!]);

/** Markers only: a line series without its line (the training pages' ECharts build carries no scatter chart). */
const markers = (name: string, data: Point[], symbol: string, color: string) => ({
  type: 'line' as const,
  name,
  data,
  symbol,
  symbolSize: 9,
  showSymbol: true,
  itemStyle: { color },
  lineStyle: { width: 0, opacity: 0 },
  emphasis: { disabled: true },
});

/** Score per trial (complete ones as dots, pruned ones as hollow triangles) and the best-so-far line as steps. */
export function trialChartOption(trials: readonly AgentTrial[], names: TrialChartNames): ChartOption {
  return {
    animation: false,
    tooltip: { trigger: 'item', valueFormatter: (v) => (typeof v === 'number' ? v.toFixed(4) : String(v)) },
    legend: { top: 0, data: [names.complete, names.pruned, names.best] },
    grid: { left: 48, right: 16, top: 36, bottom: 36 },
    xAxis: { type: 'value', name: names.trial, nameLocation: 'middle', nameGap: 22, minInterval: 1 },
    yAxis: { type: 'value', name: names.score, scale: true },
    series: [
      markers(names.complete, pointsOf(trials, 'complete'), 'circle', '#1677ff'),
      markers(names.pruned, pointsOf(trials, 'pruned'), 'emptyTriangle', '#faad14'),
      { type: 'line', name: names.best, data: bestSoFar(trials), step: 'end', showSymbol: false, itemStyle: { color: '#52c41a' } },
    ],
  };
}
