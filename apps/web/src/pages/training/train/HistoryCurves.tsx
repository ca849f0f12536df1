import { Card } from 'antd';
import type { TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { LoadError, Loading } from '../shared/PageStates';
import { useTrainingDetail } from '../trainingApi';
import { TrainingCurves } from './TrainingCurves';
import { taskOf } from '../shared/tasks';

/** The curves of a finished training, from its stored epoch history. */
export function HistoryCurves({ modelId, training }: { modelId: string; training: TrainingData }) {
  const { t } = useTranslation('training');
  const detail = useTrainingDetail(modelId, training.id);
  return (
    <Card size="small" title={t('train.curvesOf', { version: training.version })} data-testid="train-history" data-training-id={training.id}>
      {detail.isPending ? (
        <Loading testId="train-history-loading" />
      ) : detail.isError ? (
        <LoadError error={detail.error} onRetry={() => void detail.refetch()} testId="train-history-error" />
      ) : (
        <TrainingCurves history={detail.data.history} task={taskOf(training.task)} />
      )}
    </Card>
  );
}
