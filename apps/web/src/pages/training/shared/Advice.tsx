import { Alert, Tag } from 'antd';
import type { TrainingAdvice, TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { percent } from './format';
import { taskOf } from './tasks';

type T = ReturnType<typeof useTranslation>['t'];

/**
 * One piece of the server's advice (contracts TrainingAdvice) in words, with the value that would be enough:
 * `plan` words it as a warning before a start (estimate), `result` as advice after a training.
 */
export function adviceText(t: T, a: TrainingAdvice, phase: 'plan' | 'result'): string {
  switch (a.kind) {
    case 'epochs':
      if (phase === 'plan') return t('advice.epochs', { steps: a.steps, minSteps: a.minSteps, epochs: a.epochs });
      return a.steps === undefined ? t('advice.resultEpochsPlain', { epochs: a.epochs }) : t('advice.resultEpochs', { steps: a.steps, minSteps: a.minSteps, epochs: a.epochs });
    case 'imgsz':
      return t('advice.imgsz', { imgsz: a.imgsz, boxPx: a.boxPx, target: a.target });
    case 'labels':
      return t('advice.labels', { label: a.label, count: a.count, target: a.target });
    case 'time':
      return phase === 'plan' ? t('advice.timeLimit', { hours: a.hours, epochs: a.epochs }) : t('advice.resultTime', { epoch: a.epoch, epochs: a.epochs });
    case 'patience':
      return t('advice.resultPatience', { epoch: a.epoch, epochs: a.epochs });
  }
}

/** The advice as a list, one item per piece, each with its kind for tests. */
export function AdviceList({ advice, phase, testId }: { advice: readonly TrainingAdvice[]; phase: 'plan' | 'result'; testId: string }) {
  const { t } = useTranslation('training');
  return (
    <ul className="loupe-train-advice" data-testid={testId}>
      {advice.map((a, i) => (
        <li key={`${a.kind}-${i}`} data-testid={`${testId}-${a.kind}`}>
          {adviceText(t, a, phase)}
        </li>
      ))}
    </ul>
  );
}

/** Whether a training ended succeeded but is not usable as it is (the server's verdict). */
export const notUsable = (training: TrainingData) => training.status === 'succeeded' && !!training.verdict && training.verdict.level !== 'usable';

/** The verdict's metric as the pages name it: the task's headline, F1 for a multi-label classifier. */
function metricName(t: T, training: TrainingData): string {
  return training.verdict?.metric === 'f1' ? 'F1' : t(`headlineShort.${taskOf(training.task)}`);
}

/**
 * A succeeded training that learned nothing usable (or little): says so, with the figure, the threshold and the
 * advice computed from its own parameters and data. Nothing for a usable one.
 */
export function VerdictAlert({ training }: { training: TrainingData }) {
  const { t } = useTranslation('training');
  const v = training.verdict;
  if (!v || training.status !== 'succeeded' || v.level === 'usable') return null;
  const unusable = v.level === 'unusable';
  const args = {
    version: training.version,
    metric: metricName(t, training),
    value: percent(v.value),
    min: percent(unusable ? v.unusableBelow : v.weakBelow),
  };
  return (
    <Alert
      type={unusable ? 'error' : 'warning'}
      showIcon
      data-testid="train-verdict"
      data-level={v.level}
      data-training={training.id}
      title={t(unusable ? 'advice.unusableTitle' : 'advice.weakTitle')}
      description={
        <div>
          <div data-testid="train-verdict-text">{t(unusable ? 'advice.unusableText' : 'advice.weakText', args)}</div>
          {v.advice.length > 0 && (
            <>
              <div style={{ marginTop: 8, fontWeight: 600 }}>{t('advice.adviceTitle')}</div>
              <AdviceList advice={v.advice} phase="result" testId="train-verdict-advice" />
            </>
          )}
        </div>
      }
    />
  );
}

/** Beside a green "Succeeded": the verdict when the result is not usable. */
export function VerdictTag({ training }: { training: TrainingData }) {
  const { t } = useTranslation('training');
  if (!notUsable(training)) return null;
  const unusable = training.verdict!.level === 'unusable';
  return (
    <Tag color={unusable ? 'error' : 'warning'} data-testid={`train-row-verdict-${training.id}`} data-level={training.verdict!.level}>
      {t(unusable ? 'advice.tagUnusable' : 'advice.tagWeak')}
    </Tag>
  );
}
