import { useMemo, useState } from 'react';
import { Button, Card, Col, Empty, Form, Result, Row, Spin, Typography } from 'antd';
import { Errors, type ModelType } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useLabels } from '@/pages/gallery/galleryApi';
import { taskOf } from '@/pages/training/shared/tasks';
import { MeasurementSection } from '@/pages/measurement/MeasurementSection';
import { useProject } from '@/stores/project';
import { isActiveTest, useStartTest, useStopTest, useTestRun, useTestRuns } from './api/testApi';
import { chosenImages } from './api/testSelection';
import { useSucceededTrainings } from './api/trainingsApi';
import { useProjectTesting } from './api/useProjectTesting';
import { useTestEvents } from './api/useTestEvents';
import { classStats, confusionOf, hasGroundTruth, runMetrics } from './results/classStats';
import type { LabelLook } from './results/overlayGeometry';
import { ResultsGallery } from './results/ResultsGallery';
import { TestAnalysisChart } from './results/TestAnalysisChart';
import { TestMetrics } from './results/TestMetrics';
import { RunHistory } from './run/RunHistory';
import { RunProgress } from './run/RunProgress';
import { TestSettingsForm } from './settings/TestSettingsForm';
import { initialValues, startBody, type TestFormValues } from './settings/settingsRules';
import { ProjectRoute } from './shared/ProjectRoute';
import './testing.css';

/** /test (per model type): settings, run with live progress and stop, then metrics, analysis and results. */
export default function TestPage() {
  return <ProjectRoute step="test">{(p) => <TestWorkbench key={p.id} modelId={p.id} type={p.type} />}</ProjectRoute>;
}

function TestWorkbench({ modelId, type }: { modelId: string; type: ModelType }) {
  const { t } = useTranslation('testing');
  const showError = useShowError();
  const { message } = useNotify();
  const updateProject = useProject((s) => s.updateProject);
  const [form] = Form.useForm<TestFormValues>();
  const [selectedId, setSelectedId] = useState<number>();
  const runs = useTestRuns(modelId);
  const trainings = useSucceededTrainings(modelId);
  const labels = useLabels(modelId);
  const start = useStartTest(modelId);
  const stop = useStopTest(modelId);

  const items = useMemo(() => runs.data?.items ?? [], [runs.data]);
  const activeRun = items.find((r) => isActiveTest(r.status));
  const finished = useMemo(() => items.filter((r) => !isActiveTest(r.status)), [items]);
  // While a run is active its figures do not exist yet: the previous run's must not stand under the new run's
  // version (issue 31). Only a run the user picks in the history is shown then; otherwise the newest finished one.
  const listed = activeRun ? finished.find((r) => r.id === selectedId) : (finished.find((r) => r.id === selectedId) ?? finished[0]);
  const selected = useTestRun(modelId, listed?.id, listed).data;
  const live = useTestEvents(modelId, activeRun);
  useProjectTesting(modelId, runs.data ? activeRun !== undefined : undefined);

  const [chosen] = useState(() => chosenImages(modelId));
  const latest = items[0];
  const initial = useMemo(
    () => initialValues(latest, trainings.versions, chosen.length),
    // Only a new run or new versions reset the form, not a refetch of the same list.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [latest?.id, trainings.versions, chosen.length],
  );
  const labelLooks = useMemo(() => new Map<number, LabelLook>((labels.data ?? []).map((l) => [l.id, { name: l.name, color: l.color }])), [labels.data]);
  // The run's version says what it measured; a version no longer listed falls back to the model type's task.
  const task = taskOf(trainings.data?.items.find((tr) => tr.id === selected?.trainingId)?.task, type);
  const stats = useMemo(() => classStats(selected?.summary, task), [selected?.summary, task]);
  const confusion = useMemo(() => confusionOf(selected?.summary, task), [selected?.summary, task]);

  const run = async (values: TestFormValues) => {
    try {
      await start.mutateAsync(startBody(values, chosen, trainings.versions));
      // Lock the menus at once; the runs list confirms it when it comes back.
      updateProject({ projectStatus: 'testing' });
      setSelectedId(undefined);
      void message.success(t('run.started'));
    } catch (e) {
      showError(e);
      // Another tab or user started one: show it.
      if (isApiError(e) && e.code === Errors.ongoingTesting.code) void runs.refetch();
    }
  };

  const stopActive = () => {
    if (activeRun) stop.mutateAsync(activeRun.id).catch(showError);
  };

  let runBody: React.ReactNode = null;
  if (runs.isPending) runBody = <Spin data-testid="test-runs-loading" />;
  else if (runs.isError)
    runBody = (
      <Result
        status="warning"
        title={t('run.loadFailed')}
        extra={
          <Button onClick={() => void runs.refetch()} data-testid="test-runs-retry">
            {t('results.retry')}
          </Button>
        }
        data-testid="test-runs-error"
      />
    );
  else if (activeRun) runBody = <RunProgress run={activeRun} live={live} stopping={stop.isPending} onStop={stopActive} />;
  else if (!selected) runBody = <Empty description={t('run.none')} data-testid="test-no-runs" />;

  return (
    <div className="loupe-page" data-testid="test-page" data-status={activeRun ? 'testing' : (latest?.status ?? 'notTested')} data-task={task}>
      <Typography.Title level={3} data-testid="page-title">
        {t('title')}
      </Typography.Title>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8}>
          <TestSettingsForm
            modelId={modelId}
            form={form}
            initial={initial}
            versions={trainings.versions}
            versionsLoading={trainings.isPending}
            suggested={trainings.suggested}
            type={type}
            chosen={chosen.length}
            busy={activeRun !== undefined}
            starting={start.isPending}
            onRun={(v) => void run(v)}
          />
        </Col>
        <Col xs={24} lg={16}>
          <Card size="small" title={t('run.title')} data-testid="test-run-card" style={{ marginBottom: 16 }}>
            {runBody}
            {selected && (
              <div style={{ marginTop: runBody ? 16 : 0 }}>
                <RunHistory runs={finished} selected={selected} task={task} onSelect={setSelectedId} />
              </div>
            )}
          </Card>
          {selected && (
            <Card
              size="small"
              title={t('metrics.title')}
              extra={<Typography.Text type="secondary">{t('run.version', { version: selected.version })}</Typography.Text>}
              style={{ marginBottom: 16 }}
              data-testid="test-metrics-card"
              data-run-id={selected.id}
            >
              <TestMetrics run={selected} task={task} onUseConf={(conf) => form.setFieldValue('conf', conf)} />
            </Card>
          )}
          {selected && hasGroundTruth(runMetrics(selected.summary)) && (
            <Card size="small" title={t('chart.title')}>
              <TestAnalysisChart stats={stats} task={task} confusion={confusion} />
            </Card>
          )}
        </Col>
      </Row>
      {selected && (
        <Card size="small" title={t('results.title')} style={{ marginTop: 16 }}>
          <ResultsGallery key={selected.id} modelId={modelId} run={selected} labels={labelLooks} type={type} task={task} />
        </Card>
      )}
      {/* MEASURE models: measurements, OK/NG and their settings (pages/measurement; nothing for other types). */}
      <MeasurementSection modelId={modelId} type={type} run={selected} />
    </div>
  );
}
