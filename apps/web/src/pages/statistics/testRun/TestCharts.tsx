import { useMemo } from 'react';
import { Row } from 'antd';
import type { ErrorKind, TestAnalysisData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ChartCard } from '../charts/ChartCard';
import { StatChart } from '../charts/StatChart';
import { confidenceOption, confusionMatrixOption, errorKindsOf, errorsOption, f1CurveOption, prCurvesOption } from '../charts/testOptions';

/** Every test chart that applies to the run's task: PR and F1 curves, confidence histograms, errors, confusion. */
export function TestCharts({ data }: { data: TestAnalysisData }) {
  const { t } = useTranslation('statistics');
  const c = (key: string) => t(`test.charts.${key}`);
  const pr = useMemo(() => prCurvesOption(data.prCurves, { recall: t('test.table.recall'), precision: t('test.table.precision') }), [data.prCurves, t]);
  const f1 = useMemo(
    () => f1CurveOption(data.f1Curve, data.f1CurvePerClass, data.conf, { overall: t('test.charts.overall'), conf: t('test.conf'), f1: t('test.table.f1') }),
    [data.f1Curve, data.f1CurvePerClass, data.conf, t],
  );
  const confidence = useMemo(
    () => confidenceOption(data.confidence, { tp: t('test.charts.tp'), fp: t('test.charts.fp'), conf: t('test.conf') }),
    [data.confidence, t],
  );
  const errors = useMemo(() => errorsOption(data.errors, (k: ErrorKind) => t(`test.errorKind.${k}`)), [data.errors, t]);
  const confusion = useMemo(
    () => confusionMatrixOption(data.confusion, { predicted: t('test.charts.predicted'), actual: t('test.charts.actual') }),
    [data.confusion, t],
  );
  const confidenceCount = data.confidence.tp.reduce((a, b) => a + b, 0) + data.confidence.fp.reduce((a, b) => a + b, 0);
  const errorCount = errorKindsOf(data.errors).length;
  return (
    <Row gutter={[16, 16]}>
      {data.prCurves.length > 0 && (
        <ChartCard title={c('pr')}>
          <StatChart option={pr} name="pr" points={data.prCurves.length} emptyText={c('empty')} series={data.prCurves.map((p) => p.name)} />
        </ChartCard>
      )}
      {data.f1Curve.length > 0 && (
        <ChartCard title={c('f1')}>
          <StatChart option={f1} name="f1" points={data.f1Curve.length} emptyText={c('empty')} series={['overall', ...data.f1CurvePerClass.map((p) => p.name)]} />
        </ChartCard>
      )}
      {/* A segmentation run scores pixels: it has no confidences to draw. */}
      {data.confidence.edges.length > 0 && (
        <ChartCard title={c('confidence')}>
          <StatChart option={confidence} name="confidence" points={confidenceCount} emptyText={c('empty')} />
        </ChartCard>
      )}
      {errorCount > 0 && (
        <ChartCard title={c('errors')}>
          <StatChart option={errors} name="errors" points={errorCount} emptyText={c('empty')} />
        </ChartCard>
      )}
      {confusion && data.confusion && (
        <ChartCard title={c('confusion')}>
          <StatChart option={confusion} name="confusion" points={data.confusion.labels.length} emptyText={c('empty')} height={Math.max(300, data.confusion.labels.length * 36 + 100)} />
        </ChartCard>
      )}
    </Row>
  );
}
