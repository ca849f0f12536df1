import { useMemo } from 'react';
import { Button, Card, Empty, Select, Space, Typography } from 'antd';
import { useNavigate } from 'react-router-dom';
import type { TrainingData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { useProject, versionOf, type ProjectData } from '@/stores/project';
import { LoadError, Loading, NoProject } from '../shared/PageStates';
import { percent } from '../shared/format';
import { useTrainingDetail, useTrainings } from '../trainingApi';
import { taskOf } from '../shared/tasks';
import { newestFirst } from '../train/accuracy';
import { ModelCharts } from './ModelCharts';
import { ModelInfo } from './ModelInfo';
import { BaselineAlert } from './Baseline';
import { notUsable, VerdictAlert } from '../shared/Advice';

function Detail({ modelId, training }: { modelId: string; training: TrainingData }) {
  const detail = useTrainingDetail(modelId, training.id);
  if (detail.isPending) return <Loading testId="model-detail-loading" />;
  if (detail.isError) return <LoadError error={detail.error} onRetry={() => void detail.refetch()} testId="model-detail-error" />;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <VerdictAlert training={detail.data} />
      <ModelInfo detail={detail.data} />
      <BaselineAlert detail={detail.data} />
      <ModelCharts detail={detail.data} />
    </Space>
  );
}

function ModelWorkspace({ project }: { project: ProjectData }) {
  const { t } = useTranslation('training');
  const navigate = useNavigate();
  const list = useTrainings(project.id);
  const versions = useProject((s) => s.versions);
  const setVersion = useProject((s) => s.setVersion);
  const succeeded = useMemo(() => newestFirst(list.data?.items ?? []).filter((tr) => tr.status === 'succeeded'), [list.data]);

  if (list.isPending) return <Loading testId="model-loading" />;
  if (list.isError) return <LoadError error={list.error} onRetry={() => void list.refetch()} testId="model-error" />;
  if (succeeded.length === 0) {
    return (
      <Empty description={t(list.data.items.length === 0 ? 'model.emptyNone' : 'model.emptyNoSuccess')} data-testid="model-empty">
        <Button type="primary" onClick={() => navigate(stepPath('train', project.type))} data-testid="model-to-train">
          {t('model.toTrain')}
        </Button>
      </Empty>
    );
  }

  // The model's version (the sidebar tag) when it is a succeeded training, else the latest one.
  const current = versionOf(versions, project.code);
  const chosen = succeeded.find((tr) => tr.version === current) ?? succeeded[0]!;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="model-page" data-version={chosen.version}>
      <Card size="small">
        <Space wrap>
          <Typography.Text strong>{t('model.version')}</Typography.Text>
          <Select
            data-testid="model-version-select"
            value={chosen.version}
            style={{ minWidth: 220 }}
            onChange={(version: string) => setVersion(project.code, version)}
            options={succeeded.map((tr) => ({
              value: tr.version,
              label: `${tr.version} · ${t(`headline.${taskOf(tr.task)}`)} ${percent(tr.accuracy)}${notUsable(tr) ? ` · ${t(tr.verdict!.level === 'unusable' ? 'advice.tagUnusable' : 'advice.tagWeak')}` : ''}`,
            }))}
          />
          <Typography.Text type="secondary">{t('model.versionHint')}</Typography.Text>
        </Space>
      </Card>
      <Detail key={chosen.id} modelId={project.id} training={chosen} />
    </Space>
  );
}

/** /model: the SPEC §3 model info and evaluation charts of a chosen succeeded version. */
export default function ModelPage() {
  const project = useProject((s) => s.project);
  if (!project) return <NoProject />;
  return <ModelWorkspace key={project.id} project={project} />;
}
