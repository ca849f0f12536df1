import { useMemo } from 'react';
import { Card, Col, Row, Typography } from 'antd';
import type { TrainingDetailData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { EChart } from '../charts/EChart';
import { classApOption, classBarsOption, confusionOption, prCurveOption } from '../charts/options';
import { taskOf } from '../shared/tasks';
import { classAps, evaluationOf, type Evaluation } from './evaluation';

type T = (key: string, options?: Record<string, unknown>) => string;

function FromEpoch({ evaluation, detail }: { evaluation: Evaluation; detail: TrainingDetailData }) {
  const { t } = useTranslation('training');
  if (evaluation.perClassSource !== 'bestEpoch') return null;
  return (
    <Typography.Text type="secondary" data-testid="model-class-ap-source">
      {t('model.classApFromEpoch', { epoch: detail.summary?.best_epoch ?? '' })}
    </Typography.Text>
  );
}

/** Rows predicted, columns true; detection's background after the classes, classification's matrix has none. */
function Confusion({ evaluation, t }: { evaluation: Evaluation; t: T }) {
  const c = evaluation.confusion;
  const option = useMemo(
    () => confusionOption(c?.matrix ?? [], c ? [...c.names, ...(c.background ? [t('model.background')] : [])] : [], { predicted: t('model.predicted'), actual: t('model.actual') }),
    [c, t],
  );
  return (
    <Card size="small" title={t('model.confusion')}>
      <EChart option={option} points={c?.matrix.length ?? 0} testId="model-confusion" height={Math.max(320, (c?.matrix.length ?? 0) * 36 + 100)} emptyText={t('model.notAvailable')} />
    </Card>
  );
}

/** Detection (and OCR's text detector): PR curve, AP per class, confusion matrix with background. */
function DetectionCharts({ evaluation, detail, t }: { evaluation: Evaluation; detail: TrainingDetailData; t: T }) {
  const missing = t('model.notAvailable');
  const pr = useMemo(
    () => prCurveOption(evaluation.prCurve?.recall ?? [], evaluation.prCurve?.precision ?? [], { recall: t('metrics.recall'), precision: t('metrics.precision') }),
    [evaluation, t],
  );
  const aps = useMemo(() => classAps(evaluation.perClass), [evaluation]);
  const ap = useMemo(() => classApOption(aps, { ap50: t('model.ap50'), ap50_95: t('model.ap50_95') }), [aps, t]);
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={12}>
        <Card size="small" title={t('model.prCurve')}>
          <EChart option={pr} points={evaluation.prCurve?.recall.length ?? 0} testId="model-pr-curve" emptyText={missing} />
        </Card>
      </Col>
      <Col xs={24} lg={12}>
        <Card size="small" title={t('model.classAp')}>
          <EChart option={ap} points={aps.length} testId="model-class-ap" emptyText={missing} />
          <FromEpoch evaluation={evaluation} detail={detail} />
        </Card>
      </Col>
      <Col xs={24}>
        <Confusion evaluation={evaluation} t={t} />
      </Col>
    </Row>
  );
}

const CLASS_SERIES = { classify: ['precision', 'recall'], segment: ['iou', 'dice'] } as const;

/**
 * Per-class bars of a classifier (precision and recall) or a segmenter (IoU and Dice), and the classifier's
 * confusion matrix; a segmenter has none (its errors are pixels, not images).
 */
function ClassCharts({ evaluation, detail, t, kind }: { evaluation: Evaluation; detail: TrainingDetailData; t: T; kind: 'classify' | 'segment' }) {
  const series = CLASS_SERIES[kind];
  const option = useMemo(() => classBarsOption(evaluation.perClass, series.map((key) => ({ key, name: t(`model.classSeries.${key}`) }))), [evaluation, t, series]);
  const testId = kind === 'classify' ? 'model-class-pr' : 'model-class-iou';
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={kind === 'classify' ? 12 : 24}>
        <Card size="small" title={t(kind === 'classify' ? 'model.classPr' : 'model.classIou')}>
          <EChart option={option} points={evaluation.perClass.length} testId={testId} series={series} emptyText={t('model.notAvailable')} />
          <FromEpoch evaluation={evaluation} detail={detail} />
        </Card>
      </Col>
      {kind === 'classify' && (
        <Col xs={24} lg={12}>
          <Confusion evaluation={evaluation} t={t} />
        </Col>
      )}
    </Row>
  );
}

/** The chosen version's evaluation charts, as its task measures it. */
export function ModelCharts({ detail }: { detail: TrainingDetailData }) {
  const { t } = useTranslation('training');
  const task = taskOf(detail.task);
  const evaluation = useMemo(() => evaluationOf(detail, task), [detail, task]);
  if (task === 'classify' || task === 'segment') return <ClassCharts evaluation={evaluation} detail={detail} t={t} kind={task} />;
  return <DetectionCharts evaluation={evaluation} detail={detail} t={t} />;
}
