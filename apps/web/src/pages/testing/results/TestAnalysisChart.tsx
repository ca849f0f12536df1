import { useMemo } from 'react';
import { Typography } from 'antd';
import { useTranslation } from '@/i18n';
import { EChart } from '@/pages/training/charts/EChart';
import type { ChartOption } from '@/pages/training/charts/echarts';
import { classBarsOption, confusionOption } from '@/pages/training/charts/options';
import type { Task } from '@/pages/training/shared/tasks';
import type { ClassStat, confusionOf } from './classStats';
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

/** Per task, the 0–1 figures drawn per class when the run is not a detection: classification P/R, segmentation IoU/Dice. */
export const CLASS_FIGURES = { classify: ['precision', 'recall'], segment: ['iou', 'dice'] } as const satisfies Record<string, readonly (keyof ClassStat)[]>;

interface Props {
  stats: readonly ClassStat[];
  task: Task;
  confusion: ReturnType<typeof confusionOf>;
}

/**
 * SPEC §2 statistics: the test analysis chart of a run with ground truth (the training pages' ECharts element):
 * detection TP/FP/FN and AP50 per class; classification precision and recall per class and the confusion
 * matrix; segmentation IoU and Dice per class.
 */
export function TestAnalysisChart({ stats, task, confusion }: Props) {
  const { t } = useTranslation('testing');
  const own = task === 'classify' || task === 'segment' ? CLASS_FIGURES[task] : null;
  const option = useMemo(
    () =>
      own
        ? classBarsOption(
            stats.map((s) => ({ name: s.name, values: Object.fromEntries(own.map((k) => [k, s[k]])) })),
            own.map((key) => ({ key, name: t(`chart.${key}`) })),
          )
        : chartOption(stats, { tp: t('metrics.tp'), fp: t('metrics.fp'), fn: t('metrics.fn'), ap50: t('chart.ap50') }),
    [stats, own, t],
  );
  const matrix = useMemo(
    () =>
      task === 'classify' && confusion
        ? confusionOption(confusion.matrix, confusion.names, { predicted: t('chart.predicted'), actual: t('chart.actual') })
        : null,
    [task, confusion, t],
  );
  return (
    <>
      <EChart option={option} points={stats.length} testId="test-chart" series={own ?? undefined} height={320} emptyText={t('chart.empty')} />
      {matrix && confusion && (
        <>
          <Typography.Title level={5}>{t('chart.confusion')}</Typography.Title>
          <EChart option={matrix} points={confusion.matrix.length} testId="test-confusion" height={Math.max(280, confusion.matrix.length * 36 + 100)} />
        </>
      )}
    </>
  );
}
