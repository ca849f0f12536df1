import { useCallback, useMemo } from 'react';
import { Col, Row, Typography } from 'antd';
import type { TrainingEpochData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { curveOption, LOSS_KEYS, METRIC_KEYS, seriesOf } from '../charts/options';

/** Loss and accuracy curves over the epochs; `data-points` is the number of epochs drawn. */
export function TrainingCurves({ history }: { history: readonly TrainingEpochData[] }) {
  const { t } = useTranslation('training');
  const label = useCallback((key: string) => t(`metrics.${key}`, { defaultValue: key }), [t]);
  const epoch = t('train.epochAxis');
  const loss = useMemo(() => curveOption(seriesOf(history, LOSS_KEYS), label, epoch), [history, label, epoch]);
  const metrics = useMemo(() => curveOption(seriesOf(history, METRIC_KEYS), label, epoch, 1), [history, label, epoch]);
  return (
    <Row gutter={16}>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('train.lossCurves')}</Typography.Title>
        <EChart option={loss} points={history.length} testId="train-curve-loss" emptyText={t('train.noEpochs')} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('train.metricCurves')}</Typography.Title>
        <EChart option={metrics} points={history.length} testId="train-curve-metrics" emptyText={t('train.noEpochs')} />
      </Col>
    </Row>
  );
}
