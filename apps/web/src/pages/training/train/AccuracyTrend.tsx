import { useMemo } from 'react';
import { Card } from 'antd';
import { Limits, type TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { trendOption } from '../charts/options';
import { trendPoints } from './accuracy';

/** Accuracy of the last 10 succeeded trainings that have one (SPEC §2, §9). */
export function AccuracyTrend({ trainings }: { trainings: readonly TrainingData[] }) {
  const { t } = useTranslation('training');
  const points = useMemo(() => trendPoints(trainings), [trainings]);
  const name = t('versions.accuracy');
  const option = useMemo(() => trendOption(points, name), [points, name]);
  return (
    <Card size="small" title={t('train.trendTitle', { count: Limits.accuracyTrendCount })}>
      <EChart option={option} points={points.length} testId="train-accuracy-trend" height={240} emptyText={t('train.trendEmpty', { min: Limits.labeledForAccuracy })} />
    </Card>
  );
}
