import { useMemo } from 'react';
import { useTranslation } from '@/i18n';
import { EChart } from '@/pages/training/charts/EChart';
import type { ChartOption } from '@/pages/training/charts/echarts';
import type { ClassStat } from './classStats';
import { ERROR_COLOR } from './BoxOverlay';

/** Bars of TP, FP and FN per class, with AP50 as a line on its own 0–1 axis. */
export function chartOption(stats: readonly ClassStat[], names: { tp: string; fp: string; fn: string; ap50: string }): ChartOption {
  return {
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 40, right: 48, top: 36, bottom: 28, containLabel: true },
    xAxis: { type: 'category', data: stats.map((s) => s.name), axisLabel: { interval: 0, rotate: stats.length > 6 ? 30 : 0 } },
    yAxis: [
      { type: 'value', minInterval: 1 },
      { type: 'value', min: 0, max: 1, splitLine: { show: false } },
    ],
    series: [
      { name: names.tp, type: 'bar', data: stats.map((s) => s.tp), itemStyle: { color: '#52c41a' } },
      { name: names.fp, type: 'bar', data: stats.map((s) => s.fp), itemStyle: { color: '#faad14' } },
      { name: names.fn, type: 'bar', data: stats.map((s) => s.fn), itemStyle: { color: ERROR_COLOR } },
      { name: names.ap50, type: 'line', yAxisIndex: 1, data: stats.map((s) => (s.ap50 === null ? null : Number(s.ap50.toFixed(3)))) },
    ],
  };
}

/** SPEC §2 statistics: the test analysis chart of a run with ground truth (the training pages' ECharts element). */
export function TestAnalysisChart({ stats }: { stats: readonly ClassStat[] }) {
  const { t } = useTranslation('testing');
  const option = useMemo(
    () => chartOption(stats, { tp: t('metrics.tp'), fp: t('metrics.fp'), fn: t('metrics.fn'), ap50: t('chart.ap50') }),
    [stats, t],
  );
  return <EChart option={option} points={stats.length} testId="test-chart" height={320} emptyText={t('chart.empty')} />;
}
