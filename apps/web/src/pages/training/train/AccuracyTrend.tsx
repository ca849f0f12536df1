import { useMemo } from 'react';
import { Card } from 'antd';
import { Limits, type TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { trendOption } from '../charts/options';
import { HEADLINE, taskOf } from '../shared/tasks';
import { trendPoints } from './accuracy';

/** Accuracy (the task's headline metric: mAP50, top-1, mIoU …) of the last 10 succeeded trainings that have one (SPEC §2, §9). */
export function AccuracyTrend({ trainings, type }: { trainings: readonly TrainingData[]; type?: string }) {
  const { t } = useTranslation('training');
  const points = useMemo(() => trendPoints(trainings), [trainings]);
  // The model's trainings share a type: the newest one names the headline metric the accuracy is.
  const task = taskOf(trainings[0]?.task, type);
  const name = t(`headline.${task}`);
  const option = useMemo(() => trendOption(points, name), [points, name]);
  return (
    <Card size="small" title={t('train.trendTitle', { count: Limits.accuracyTrendCount })}>
      <EChart option={option} points={points.length} testId="train-accuracy-trend" series={[HEADLINE[task]]} height={240} emptyText={t('train.trendEmpty', { min: Limits.labeledForAccuracy })} />
    </Card>
  );
}
