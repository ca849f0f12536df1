import { useCallback, useMemo } from 'react';
import { Col, Row, Typography } from 'antd';
import type { TrainingEpochData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { curveOption, seriesOf } from '../charts/options';
import { lossKeys, METRIC_CURVES, type Task } from '../shared/tasks';

/**
 * Loss and accuracy curves over the epochs, the accuracy curves being the task's own metrics (mAP, top-1, mIoU,
 * character accuracy …); `data-points` is the number of epochs drawn, `data-series` the metric keys.
 */
export function TrainingCurves({ history, task }: { history: readonly TrainingEpochData[]; task: Task }) {
  const { t } = useTranslation('training');
  const label = useCallback((key: string) => t(`metrics.${key}`, { defaultValue: key }), [t]);
  const epoch = t('train.epochAxis');
  const lossSeries = useMemo(() => seriesOf(history, lossKeys(history)), [history]);
  const metricSeries = useMemo(() => seriesOf(history, METRIC_CURVES[task]), [history, task]);
  const loss = useMemo(() => curveOption(lossSeries, label, epoch), [lossSeries, label, epoch]);
  const metrics = useMemo(() => curveOption(metricSeries, label, epoch, 1), [metricSeries, label, epoch]);
  return (
    <Row gutter={16}>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('train.lossCurves')}</Typography.Title>
        <EChart option={loss} points={history.length} testId="train-curve-loss" emptyText={t('train.noEpochs')} series={lossSeries.map((s) => s.key)} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('train.metricCurves')}</Typography.Title>
        <EChart option={metrics} points={history.length} testId="train-curve-metrics" emptyText={t('train.noEpochs')} series={metricSeries.map((s) => s.key)} />
      </Col>
    </Row>
  );
}
