import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Button, Card, Descriptions, Space, Tag, Typography } from 'antd';
import type { AgentRunData, SuggestedConfidences, TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { useProject } from '@/stores/project';
import { DASH, fixed, percent } from '@/pages/training/shared/format';
import { useTrainings } from '@/pages/training/trainingApi';
import { isTerminalPhase, useTestSuggestion } from './agentApi';

/** The test of the recommended version: tests run in the order of the versions they test. */
export function bestTestId(run: AgentRunData): number | undefined {
  if (run.testRunIds.length === 0) return undefined;
  const index = run.bestTrainingId === null ? -1 : run.trainingIds.indexOf(run.bestTrainingId);
  return run.testRunIds[index] ?? run.testRunIds[run.testRunIds.length - 1];
}

/**
 * A trained version: /model shows the model's current version, so opening it there makes it current first (as
 * a finished training does); /train lists every version.
 */
function VersionLinks({ modelId, id, training, best }: { modelId: string; id: number; training: TrainingData | undefined; best: boolean }) {
  const { t } = useTranslation('agent');
  const navigate = useNavigate();
  const project = useProject((s) => s.project);
  const setVersion = useProject((s) => s.setVersion);
  // Until the version list arrives (or once a version was deleted) the id stands in for its name.
  const version = training?.version ?? `#${id}`;
  const openModel = () => {
    if (project && training) setVersion(project.code, training.version);
    navigate('/model');
  };
  return (
    <Space data-testid={best ? 'agent-best-version' : 'agent-version'} data-training={id} data-version={version}>
      <Typography.Text strong>{version}</Typography.Text>
      {best && <Tag color="gold">{t('result.recommended')}</Tag>}
      {training && project?.id === modelId && (
        <>
          <Button size="small" type="link" onClick={openModel} data-testid={`agent-open-model-${id}`}>
            {t('result.openModel')}
          </Button>
          <Link to={stepPath('train', project?.type)}>{t('result.openTrain')}</Link>
        </>
      )}
    </Space>
  );
}

function Suggested({ suggested }: { suggested: SuggestedConfidences }) {
  const { t } = useTranslation('agent');
  const target = percent(suggested.recall.target, 0);
  return (
    <Space orientation="vertical" size={0} data-testid="agent-suggested" data-f1-conf={suggested.f1.overall} data-recall-conf={suggested.recall.conf ?? ''}>
      <span>{t('result.f1Conf', { conf: fixed(suggested.f1.overall, 2), f1: fixed(suggested.f1.f1, 3) })}</span>
      <span>
        {suggested.recall.conf === null
          ? t('result.recallNone', { target })
          : t('result.recallConf', { conf: fixed(suggested.recall.conf, 2), target })}
      </span>
    </Space>
  );
}

function TestLinks({ modelId, testId }: { modelId: string; testId: number }) {
  const { t } = useTranslation('agent');
  const type = useProject((s) => (s.project?.id === modelId ? s.project.type : undefined));
  const query = new URLSearchParams({ id: modelId, tab: 'test', testId: String(testId) });
  return (
    <Space>
      <Link to={stepPath('test', type)} data-testid="agent-open-test">
        {t('result.openTest')}
      </Link>
      <Link to={`/statistics?${query.toString()}`} data-testid="agent-open-statistics">
        {t('result.openStatistics')}
      </Link>
    </Space>
  );
}

/** What the run produced: whether tuning was adopted, its versions, the recommended one and its confidences. */
export function RunResult({ modelId, run }: { modelId: string; run: AgentRunData }) {
  const { t } = useTranslation('agent');
  const trainings = useTrainings(modelId);
  const byId = new Map((trainings.data?.items ?? []).map((tr) => [tr.id, tr]));
  // A version the agent started after the list was read (the retrain) is asked for once it appears in the run.
  const unknown = trainings.isSuccess && run.trainingIds.some((id) => !byId.has(id));
  const { refetch } = trainings;
  useEffect(() => {
    if (unknown) void refetch();
  }, [unknown, refetch, run.trainingIds.length]);
  // The confidences are final once the run is: its last test may still be running before.
  const testId = isTerminalPhase(run.phase) ? bestTestId(run) : undefined;
  const analysis = useTestSuggestion(modelId, testId);
  if (run.adopted === null && run.trainingIds.length === 0) return null;
  const suggested = analysis.data?.suggested ?? null;
  const items = [
    {
      key: 'adopted',
      label: t('result.config'),
      children: (
        <span data-testid="agent-adopted" data-adopted={run.adopted === null ? '' : String(run.adopted)}>
          {run.adopted === null ? DASH : t(run.adopted ? 'result.adopted' : 'result.notAdopted')}
        </span>
      ),
    },
    {
      key: 'versions',
      label: t('result.versions'),
      children: (
        <Space orientation="vertical" size={0}>
          {run.trainingIds.length === 0 && DASH}
          {run.trainingIds.map((id) => (
            <VersionLinks key={id} modelId={modelId} id={id} training={byId.get(id)} best={id === run.bestTrainingId} />
          ))}
        </Space>
      ),
    },
    {
      key: 'suggested',
      label: t('result.suggested'),
      children: (
        <Space orientation="vertical" size="small">
          {suggested ? <Suggested suggested={suggested} /> : DASH}
          {testId !== undefined && <TestLinks modelId={modelId} testId={testId} />}
        </Space>
      ),
    },
  ];
  return (
    <Card size="small" title={t('result.title')} data-testid="agent-result">
      <Descriptions size="small" column={1} items={items} />
    </Card>
  );
}
