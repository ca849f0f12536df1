import { useState } from 'react';
import { App, Button, Card, Radio, Space, Typography } from 'antd';
import { Link } from 'react-router-dom';
import type { TrainingData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { changedKeys, formValuesOf } from '../parameter/paramForm';
import { choosesRotation } from '../shared/tasks';
import { useSavedParams, useStartTraining } from '../trainingApi';

/** Rotated-box type of a new training: the data decides (any rotated box → rotated), or the user does. */
export type RotatedChoice = 'auto' | 'rotated' | 'axis';
export const ROTATED_CHOICES: RotatedChoice[] = ['auto', 'rotated', 'axis'];

export const rotatedOf = (choice: RotatedChoice): boolean | undefined => (choice === 'auto' ? undefined : choice === 'rotated');

/** How many saved parameters differ from the defaults; null while unknown (the start uses the saved ones). */
function useSavedChanges(modelId: string): number | null {
  const saved = useSavedParams(modelId);
  return saved.data ? changedKeys(formValuesOf(saved.data.saved)).length : null;
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
  const changes = useSavedChanges(modelId);
  const rotates = choosesRotation(type);

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
      </Space>
    </Card>
  );
}
