import { Alert, Button, Card, Empty, Space, Tag, Typography } from 'antd';
import { ExperimentOutlined, ReloadOutlined } from '@ant-design/icons';
import type { AnalysisStatus, DatasetAnalysisData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { dateTime } from '@/pages/training/shared/format';
import { LoadError, Loading } from '@/pages/training/shared/PageStates';
import { isAnalysisActive, useAnalysis, useStartAnalysis } from '../statisticsApi';
import { DatasetCharts } from './DatasetCharts';
import { FindingsList } from './FindingsList';
import { Recommendations } from './Recommendations';

const STATUS_COLOR: Record<AnalysisStatus, string> = { queued: 'default', running: 'processing', completed: 'success', failed: 'error', stopped: 'warning' };

/** Status, the Analyse button and the stale or failed banners above the figures. */
function Header({ analysis, onAnalyse, starting }: { analysis: DatasetAnalysisData | null; onAnalyse: () => void; starting: boolean }) {
  const { t } = useTranslation('statistics');
  const active = isAnalysisActive(analysis?.status);
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Space wrap>
        <Button type="primary" icon={<ExperimentOutlined />} onClick={onAnalyse} loading={starting || active} data-testid="statistics-analyse">
          {t(analysis ? 'dataset.reanalyse' : 'dataset.analyse')}
        </Button>
        {analysis && (
          <Tag color={STATUS_COLOR[analysis.status]} data-testid="statistics-status" data-status={analysis.status}>
            {t(`status.${analysis.status}`)}
          </Tag>
        )}
        {analysis?.finishedAt && analysis.status === 'completed' && (
          <Typography.Text type="secondary">{t('dataset.analysedAt', { when: dateTime(analysis.finishedAt), imgsz: analysis.imgsz })}</Typography.Text>
        )}
      </Space>
      {analysis?.stale && !active && (
        <Alert
          type="warning"
          showIcon
          title={t('dataset.stale')}
          data-testid="statistics-stale"
          action={
            <Button size="small" icon={<ReloadOutlined />} onClick={onAnalyse} data-testid="statistics-reanalyse">
              {t('dataset.reanalyse')}
            </Button>
          }
        />
      )}
      {analysis && (analysis.status === 'failed' || analysis.status === 'stopped') && (
        <Alert type="error" showIcon title={t('dataset.failed')} description={analysis.error ?? undefined} data-testid="statistics-failed" />
      )}
    </Space>
  );
}

/** The dataset tab: run the analysis, then its charts, findings and recommendations. */
export function DatasetTab({ modelId, type }: { modelId: string; type: string | undefined }) {
  const { t } = useTranslation('statistics');
  const showError = useShowError();
  const query = useAnalysis(modelId);
  const start = useStartAnalysis(modelId);
  if (query.isPending) return <Loading testId="statistics-loading" />;
  if (query.isError) return <LoadError error={query.error} onRetry={() => void query.refetch()} testId="statistics-error" />;
  const analysis = query.data;
  // A second Analyse on unchanged data would only answer the stored result: ask for a new one.
  const analyse = () => start.mutateAsync(analysis !== null).catch(showError);
  const result = analysis?.result ?? null;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="statistics-dataset" data-status={analysis?.status ?? 'none'}>
      <Header analysis={analysis} onAnalyse={() => void analyse()} starting={start.isPending} />
      {!analysis && (
        <Card size="small">
          <Empty description={t('dataset.empty')} data-testid="statistics-empty" />
        </Card>
      )}
      {analysis && result && (
        <>
          <DatasetCharts result={result} />
          <FindingsList analysis={analysis} modelId={modelId} type={type} />
          <Recommendations items={result.recommendations} />
        </>
      )}
    </Space>
  );
}
