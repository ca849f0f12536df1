import { useState } from 'react';
import { Alert, App, Button, Card, Radio, Space, Typography } from 'antd';
import { Link } from 'react-router-dom';
import type { TrainingData, TrainingEstimateData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { changedKeys, formValuesOf } from '../parameter/paramForm';
import { choosesRotation } from '../shared/tasks';
import { useSavedParams, useStartTraining, useTrainingEstimate } from '../trainingApi';
import { AdviceList } from '../shared/Advice';
import { duration } from '../shared/format';

/** Rotated-box type of a new training: the data decides (any rotated box → rotated), or the user does. */
export type RotatedChoice = 'auto' | 'rotated' | 'axis';
export const ROTATED_CHOICES: RotatedChoice[] = ['auto', 'rotated', 'axis'];

export const rotatedOf = (choice: RotatedChoice): boolean | undefined => (choice === 'auto' ? undefined : choice === 'rotated');

/**
 * Beside the start button (issue 31): how long the training would take on this server, the plan in steps, and
 * why it would learn nothing (each warning with the value that is enough). The server computes it from the
 * saved parameters and the current data, so it follows every change saved at /parameter.
 */
function Estimate({ estimate }: { estimate: TrainingEstimateData }) {
  const { t } = useTranslation('training');
  return (
    <div data-testid="train-estimate" data-seconds={estimate.seconds} data-basis={estimate.basis} data-steps={estimate.steps}>
      <Typography.Text strong data-testid="train-estimate-time">
        {t('advice.time', { time: duration(estimate.seconds) })}
      </Typography.Text>{' '}
      <Typography.Text type="secondary">
        ({estimate.basis === 'history' ? t('advice.basisHistory', { count: estimate.basedOn }) : t('advice.basisTable')})
      </Typography.Text>
      <div>
        <Typography.Text type="secondary" data-testid="train-estimate-plan">
          {t('advice.plan', { images: estimate.trainImages, batch: estimate.batch, perEpoch: estimate.stepsPerEpoch, epochs: estimate.epochs, steps: estimate.steps })}
        </Typography.Text>
      </div>
      {estimate.warnings.length > 0 && (
        <Alert
          type="warning"
          showIcon
          style={{ marginTop: 8 }}
          title={t('advice.warningsTitle')}
          description={<AdviceList advice={estimate.warnings} phase="plan" testId="train-warnings" />}
        />
      )}
    </div>
  );
}

/**
 * Start a training. The server freezes the labeled data and uses the saved parameters; 8001 (nothing labeled)
 * and 40002 (a label without a training or validation image) come back as a notice with a button to /mark.
 * The rotated-box type is asked only of a model type that trains rotated boxes (detection); the others ignore it.
 */
export function StartPanel({ modelId, type, busy, onStarted }: { modelId: string; type: string; busy: boolean; onStarted: (t: TrainingData) => void }) {
  const { t } = useTranslation('training');
  const { message } = App.useApp();
  const showError = useShowError();
  const [choice, setChoice] = useState<RotatedChoice>('auto');
  const start = useStartTraining(modelId);
  const saved = useSavedParams(modelId);
  // How many saved parameters differ from the defaults; null while unknown (the start uses the saved ones).
  const changes = saved.data ? changedKeys(formValuesOf(saved.data.saved)).length : null;
  const rotates = choosesRotation(type);
  const estimate = useTrainingEstimate(modelId, saved.data, rotates ? rotatedOf(choice) : undefined);

  const onStart = async () => {
    try {
      const training = await start.mutateAsync(rotates ? { rotated: rotatedOf(choice) } : {});
      void message.success(t('train.started', { version: training.version }));
      onStarted(training);
    } catch (error) {
      showError(error);
    }
  };

  return (
    <Card size="small" title={t('train.startTitle')} data-testid="train-start-panel">
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        {rotates && (
          <div>
            <Typography.Text strong>{t('train.rotatedType')}</Typography.Text>
            <div>
              <Radio.Group value={choice} onChange={(e) => setChoice(e.target.value as RotatedChoice)} data-testid="train-rotated" disabled={busy}>
                {ROTATED_CHOICES.map((c) => (
                  <Radio.Button key={c} value={c}>
                    <span data-testid={`train-rotated-${c}`}>{t(`train.rotated.${c}`)}</span>
                  </Radio.Button>
                ))}
              </Radio.Group>
            </div>
            <Typography.Text type="secondary">{t('train.rotatedHint')}</Typography.Text>
          </div>
        )}
        <Space wrap>
          <Button type="primary" size="large" onClick={() => void onStart()} loading={start.isPending} disabled={busy} data-testid="train-start">
            {t('train.start')}
          </Button>
          <Typography.Text type="secondary" data-testid="train-params-note" data-changed={changes ?? ''}>
            {changes === null || changes === 0 ? t('train.paramsDefault') : t('train.paramsChanged', { count: changes })}{' '}
            <Link to="/parameter">{t('train.editParams')}</Link>
          </Typography.Text>
          {busy && <Typography.Text type="secondary">{t('train.oneAtATime')}</Typography.Text>}
        </Space>
        {estimate.data && <Estimate estimate={estimate.data} />}
      </Space>
    </Card>
  );
}
