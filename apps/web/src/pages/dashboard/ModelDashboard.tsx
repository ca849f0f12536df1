import { Alert, Card, Descriptions, Tag } from 'antd';
import { Dashboard } from '@/pages/shell/Dashboard';
import { useModel } from '@/pages/models/modelsApi';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';

/** The open model at a glance above the shell's four steps (SPEC §2 home). */
function ModelSummary({ modelId }: { modelId: string }) {
  const { t } = useTranslation(['models', 'gallery']);
  const model = useModel(modelId).data;
  if (!model) return null;
  return (
    <Card size="small" style={{ marginBottom: 16, maxWidth: 1280 }} data-testid="dashboard-model">
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, lg: 4 }}
        items={[
          { key: 'name', label: t('list.name'), children: model.name },
          { key: 'type', label: t('list.type'), children: t(`types.${model.type}.title`) },
          { key: 'images', label: t('list.images'), children: `${model.labeledImages} / ${model.totalImages}` },
          { key: 'training', label: t('list.trainingStatus'), children: <Tag>{t(`trainingStatus.${model.trainingStatus}`)}</Tag> },
        ]}
      />
      {model.belowRecommendedImages && (
        <Alert
          type="warning"
          showIcon
          style={{ marginTop: 8 }}
          title={t('gallery:recommend', { count: model.recommendedImages, have: model.totalImages })}
        />
      )}
    </Card>
  );
}

export default function ModelDashboard() {
  const project = useProject((s) => s.project);
  return (
    <>
      {project && <ModelSummary modelId={project.id} />}
      <Dashboard />
    </>
  );
}
