import { Alert, Button, Col, Row, Space, Statistic, Typography } from 'antd';
import type { TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import type { Task } from '@/pages/training/shared/tasks';
import { hasGroundTruth, runMetrics, type RunMetrics } from './classStats';

interface Props {
  run: TestRunData;
  task: Task;
  /** Put the engine's best-F1 confidence into the settings form. */
  onUseConf: (conf: number) => void;
}

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);
const fixed3 = (v: number | null) => (v === null ? '–' : v.toFixed(3));

/**
 * The figures a run with ground truth shows, per task: [test id suffix, `metrics.` text key, value]. Detection:
 * P, R, F1, mAP and the box counts; classification: top-1 (top-5 with more than 5 classes), macro P, R, F1 and
 * the right and wrong images; segmentation: mIoU, Dice, pixel accuracy, pixel P and R and the instance counts;
 * OCR: character and line accuracy, normalised edit distance, then the text boxes as detection's.
 */
export function groundTruthMetrics(task: Task, m: RunMetrics, run: Pick<TestRunData, 'tp' | 'fp' | 'fn'>): [string, string, string | number][] {
  const prf: [string, string, string][] = [
    ['precision', 'precision', pct(m.precision)],
    ['recall', 'recall', pct(m.recall)],
    ['f1', 'f1', pct(m.f1)],
  ];
  const counts: [string, string, number][] = [
    ['tp', 'tp', run.tp],
    ['fp', 'fp', run.fp],
    ['fn', 'fn', run.fn],
  ];
  const detection: [string, string, string | number][] = [...prf, ['map50', 'mAP50', pct(m.mAP50)], ['map50-95', 'mAP50_95', pct(m.mAP50_95)], ...counts];
  if (task === 'classify' && m.top1 === null && m.exactMatch !== null) {
    // Multi-label: an image is right when its predicted set of classes is its true set.
    return [['exact-match', 'exactMatch', pct(m.exactMatch)], ['map', 'mAP', pct(m.mAP)], ...prf, ['correct', 'correct', run.tp], ['wrong', 'wrong', run.fp]];
  }
  if (task === 'classify') {
    return [
      ['top1', 'top1', pct(m.top1)],
      ...(m.top5 === null ? [] : [['top5', 'top5', pct(m.top5)] as [string, string, string]]),
      ...prf,
      // A classified image is right (one TP) or wrong (an FP for its predicted class, an FN for its own).
      ['correct', 'correct', run.tp],
      ['wrong', 'wrong', run.fp],
    ];
  }
  if (task === 'segment') {
    return [['miou', 'mIoU', pct(m.mIoU)], ['dice', 'dice', pct(m.dice)], ['pixel-accuracy', 'pixelAccuracy', pct(m.pixelAccuracy)], ...prf.slice(0, 2), ...counts];
  }
  if (task === 'ocr') return [['char-acc', 'charAcc', pct(m.charAcc)], ['line-acc', 'lineAcc', pct(m.lineAcc)], ['ned', 'ned', fixed3(m.ned)], ...detection];
  return detection;
}

function Metric({ id, title, value }: { id: string; title: string; value: string | number }) {
  return (
    <Col xs={12} sm={8} md={6}>
      <div data-testid={`test-metric-${id}`} data-value={value}>
        <Statistic title={title} value={value} />
      </div>
    </Col>
  );
}

/** Why a run without ground truth has no accuracy, for the tasks whose ground truth is not boxes. */
const NO_GROUND_TRUTH: Partial<Record<Task, string>> = { classify: 'metrics.noGroundTruthClassify', segment: 'metrics.noGroundTruthSegment' };

/** The run's metrics: the task's figures (groundTruthMetrics) when the images had ground truth; speed always. */
export function TestMetrics({ run, task, onUseConf }: Props) {
  const { t } = useTranslation('testing');
  const m = runMetrics(run.summary);
  const gt = hasGroundTruth(m);
  const suggested = m.suggestedConf;
  return (
    <div data-testid="test-metrics" data-has-gt={gt}>
      <Row gutter={[16, 16]}>
        <Metric id="images" title={t('metrics.images')} value={run.imageCount} />
        {m.detections !== null && <Metric id="detections" title={t('metrics.detections')} value={m.detections} />}
        {m.instances !== null && <Metric id="instances" title={t('metrics.instances')} value={m.instances} />}
        {m.inferenceMs !== null && <Metric id="inference" title={t('metrics.inferenceMs')} value={m.inferenceMs.toFixed(1)} />}
        {m.fps !== null && <Metric id="fps" title={t('metrics.fps')} value={m.fps.toFixed(1)} />}
        {gt && groundTruthMetrics(task, m, run).map(([id, key, value]) => <Metric key={id} id={id} title={t(`metrics.${key}`)} value={value} />)}
      </Row>
      {!gt && <Alert type="info" showIcon style={{ marginTop: 12 }} title={t(NO_GROUND_TRUTH[task] ?? 'metrics.noGroundTruth')} data-testid="test-no-gt" />}
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
