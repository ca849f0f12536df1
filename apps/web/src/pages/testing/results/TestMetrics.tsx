import { Alert, Button, Col, Row, Space, Statistic, Typography } from 'antd';
import type { TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { hasGroundTruth, runMetrics } from './classStats';

interface Props {
  run: TestRunData;
  /** Put the engine's best-F1 confidence into the settings form. */
  onUseConf: (conf: number) => void;
}

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);

function Metric({ id, title, value }: { id: string; title: string; value: string | number }) {
  return (
    <Col xs={12} sm={8} md={6}>
      <div data-testid={`test-metric-${id}`} data-value={value}>
        <Statistic title={title} value={value} />
      </div>
    </Col>
  );
}

/** The run's metrics: P, R, F1, mAP50 and the TP/FP/FN totals when the images had ground truth; speed always. */
export function TestMetrics({ run, onUseConf }: Props) {
  const { t } = useTranslation('testing');
  const m = runMetrics(run.summary);
  const gt = hasGroundTruth(m);
  const suggested = m.suggestedConf;
  return (
    <div data-testid="test-metrics" data-has-gt={gt}>
      <Row gutter={[16, 16]}>
        <Metric id="images" title={t('metrics.images')} value={run.imageCount} />
        {m.detections !== null && <Metric id="detections" title={t('metrics.detections')} value={m.detections} />}
        {m.inferenceMs !== null && <Metric id="inference" title={t('metrics.inferenceMs')} value={m.inferenceMs.toFixed(1)} />}
        {m.fps !== null && <Metric id="fps" title={t('metrics.fps')} value={m.fps.toFixed(1)} />}
        {gt && (
          <>
            <Metric id="precision" title={t('metrics.precision')} value={pct(m.precision)} />
            <Metric id="recall" title={t('metrics.recall')} value={pct(m.recall)} />
            <Metric id="f1" title={t('metrics.f1')} value={pct(m.f1)} />
            <Metric id="map50" title={t('metrics.mAP50')} value={pct(m.mAP50)} />
            <Metric id="map50-95" title={t('metrics.mAP50_95')} value={pct(m.mAP50_95)} />
            <Metric id="tp" title={t('metrics.tp')} value={run.tp} />
            <Metric id="fp" title={t('metrics.fp')} value={run.fp} />
            <Metric id="fn" title={t('metrics.fn')} value={run.fn} />
          </>
        )}
      </Row>
      {!gt && <Alert type="info" showIcon style={{ marginTop: 12 }} title={t('metrics.noGroundTruth')} data-testid="test-no-gt" />}
      {gt && suggested !== null && Math.abs(suggested - run.settings.conf) >= 0.01 && (
        <Space style={{ marginTop: 12 }} data-testid="test-suggested-conf" data-value={suggested}>
          <Typography.Text type="secondary">{t('metrics.suggestedConf', { conf: suggested.toFixed(2) })}</Typography.Text>
          <Button size="small" onClick={() => onUseConf(Math.round(suggested * 100) / 100)} data-testid="test-use-suggested">
            {t('metrics.useSuggested')}
          </Button>
        </Space>
      )}
    </div>
  );
}
