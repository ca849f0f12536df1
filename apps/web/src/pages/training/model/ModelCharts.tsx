import { useMemo } from 'react';
import { Card, Col, Row, Typography } from 'antd';
import type { TrainingDetailData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { classApOption, confusionOption, prCurveOption } from '../charts/options';
import { evaluationOf } from './evaluation';

/** PR curve, per-class AP and confusion matrix of the chosen version's best weights. */
export function ModelCharts({ detail }: { detail: TrainingDetailData }) {
  const { t } = useTranslation('training');
  const evaluation = useMemo(() => evaluationOf(detail), [detail]);
  const missing = t('model.notAvailable');

  const pr = useMemo(
    () => prCurveOption(evaluation.prCurve?.recall ?? [], evaluation.prCurve?.precision ?? [], { recall: t('metrics.recall'), precision: t('metrics.precision') }),
    [evaluation, t],
  );
  const ap = useMemo(() => classApOption(evaluation.perClass, { ap50: t('model.ap50'), ap50_95: t('model.ap50_95') }), [evaluation, t]);
  const confusion = useMemo(() => {
    const c = evaluation.confusion;
    return confusionOption(c?.matrix ?? [], c ? [...c.names, t('model.background')] : [], { predicted: t('model.predicted'), actual: t('model.actual') });
  }, [evaluation, t]);

  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={12}>
        <Card size="small" title={t('model.prCurve')}>
          <EChart option={pr} points={evaluation.prCurve?.recall.length ?? 0} testId="model-pr-curve" emptyText={missing} />
        </Card>
      </Col>
      <Col xs={24} lg={12}>
        <Card size="small" title={t('model.classAp')}>
          <EChart option={ap} points={evaluation.perClass.length} testId="model-class-ap" emptyText={missing} />
          {evaluation.perClassSource === 'bestEpoch' && (
            <Typography.Text type="secondary" data-testid="model-class-ap-source">
              {t('model.classApFromEpoch', { epoch: detail.summary?.best_epoch ?? '' })}
            </Typography.Text>
          )}
        </Card>
      </Col>
      <Col xs={24}>
        <Card size="small" title={t('model.confusion')}>
          <EChart
            option={confusion}
            points={evaluation.confusion?.matrix.length ?? 0}
            testId="model-confusion"
            height={Math.max(320, (evaluation.confusion?.matrix.length ?? 0) * 36 + 100)}
            emptyText={missing}
          />
        </Card>
      </Col>
    </Row>
  );
}
