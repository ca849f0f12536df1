import { useCallback, useMemo, useState } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { Alert, App, Button, Card, Space } from 'antd';
import { TrainingPaths, type TrainingData, type TrainingStateEvent } from '@loupe/contracts';
import { api } from '@/api/client';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { useProject } from '@/stores/project';
import { LoadError, Loading, NoProject } from '../shared/PageStates';
import { isActive, trainingPath, useResumeTraining, useTrainings, useTrainingsChanged } from '../trainingApi';
import { newestFirst } from './accuracy';
import { AccuracyTrend } from './AccuracyTrend';
import { ActiveTraining } from './ActiveTraining';
import { HistoryCurves } from './HistoryCurves';
import { StartPanel } from './StartPanel';
import { useProjectSync } from './useProjectSync';
import { VersionTable } from './VersionTable';
import { notUsable, VerdictAlert } from '../shared/Advice';

function TrainWorkspace({ modelId, code, type }: { modelId: string; code: string; type: string }) {
  const { t } = useTranslation('training');
  const { message } = App.useApp();
  const showError = useShowError();
  const list = useTrainings(modelId);
  const trainings = useMemo(() => (list.data ? newestFirst(list.data.items) : undefined), [list.data]);
  useProjectSync(trainings);
  const setVersion = useProject((s) => s.setVersion);
  const changed = useTrainingsChanged(modelId);
  const resume = useResumeTraining(modelId);
  const [selectedId, setSelectedId] = useState<number>();

  const active = trainings?.find((tr) => isActive(tr.status));
  const latest = trainings?.[0];
  const shown = trainings?.find((tr) => tr.id === selectedId) ?? latest;

  const onEnd = useCallback(
    (training: TrainingData, state: TrainingStateEvent) => {
      // The list learns the end at once, so the project unlocks without waiting for the refetch.
      changed({ ...training, status: state.status, error: state.error, etaS: null });
      if (state.status === 'succeeded') {
        // A new finetuned version is the model's version from now on (the sidebar's finetuned_{version} tag).
        setVersion(code, training.version);
        // Issue 31: the end is announced by the server's verdict, not a green "succeeded" whatever was learned.
        void api
          .get<TrainingData>(trainingPath(TrainingPaths.one, modelId, training.id), { silent: true })
          .then((done) => {
            if (!notUsable(done)) return void message.success(t('train.succeeded', { version: training.version }));
            const key = done.verdict!.level === 'unusable' ? 'advice.finishedUnusable' : 'advice.finishedWeak';
            void message.warning(t(key, { version: training.version }));
          })
          .catch(() => void message.success(t('train.succeeded', { version: training.version })));
      } else if (state.status === 'failed') {
        void message.error(t('train.failedNotice', { version: training.version, error: state.error ?? '' }));
      } else {
        void message.info(t('train.cancelledNotice', { version: training.version }));
      }
    },
    [changed, setVersion, code, message, t, modelId],
  );

  const onResume = async (id: number) => {
    try {
      const training = await resume.mutateAsync(id);
      void message.success(t('train.resumed', { version: training.version }));
      setSelectedId(undefined);
    } catch (error) {
      showError(error);
    }
  };

  if (list.isPending) return <Loading testId="train-loading" />;
  if (list.isError || !trainings) return <LoadError error={list.error} onRetry={() => void list.refetch()} testId="train-error" />;

  const failedLatest = !active && latest?.status === 'failed' ? latest : undefined;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="train-page">
      <StartPanel modelId={modelId} type={type} busy={Boolean(active)} onStarted={() => setSelectedId(undefined)} />
      {failedLatest && (
        <Alert
          type="error"
          showIcon
          data-testid="train-failed"
          title={t('train.failedTitle', { version: failedLatest.version })}
          description={failedLatest.error ?? undefined}
          action={
            failedLatest.resumable ? (
              <Button onClick={() => void onResume(failedLatest.id)} loading={resume.isPending} data-testid="train-resume">
                {t('versions.resume')}
              </Button>
            ) : undefined
          }
        />
      )}
      {shown && shown.id !== active?.id && <VerdictAlert key={`verdict-${shown.id}`} training={shown} />}
      {active && <ActiveTraining key={active.id} modelId={modelId} training={active} onEnd={(state) => onEnd(active, state)} />}
      {shown && shown.id !== active?.id && <HistoryCurves key={shown.id} modelId={modelId} training={shown} />}
      <Card size="small" title={t('versions.title')}>
        <VersionTable
          type={type}
          trainings={trainings}
          selectedId={shown?.id}
          onSelect={setSelectedId}
          onResume={(id) => void onResume(id)}
          resumingId={resume.isPending ? (resume.variables ?? null) : null}
          busy={Boolean(active)}
        />
      </Card>
      <AccuracyTrend trainings={trainings} type={type} />
    </Space>
  );
}

/**
 * /train and its model-type children (SPEC §2): the page of the open model's own type; another type's path
 * (an old bookmark) is sent to it.
 */
export default function TrainPage() {
  const project = useProject((s) => s.project);
  const { pathname, search } = useLocation();
  if (!project) return <NoProject />;
  const own = stepPath('train', project.type);
  if (own.toLowerCase() !== pathname.replace(/\/+$/, '').toLowerCase()) return <Navigate to={`${own}${search}`} replace />;
  return <TrainWorkspace key={project.id} modelId={project.id} code={project.code} type={project.type} />;
}
