import { useSearchParams } from 'react-router-dom';
import { Tabs, Typography } from 'antd';
import { useTranslation } from '@/i18n';
import { NoProject } from '@/pages/training/shared/PageStates';
import { useProject } from '@/stores/project';
import { DatasetTab } from './dataset/DatasetTab';
import { TestTab } from './testRun/TestTab';
import { statisticsPath, type StatisticsTab } from './paths';
import './statistics.css';

/**
 * /statistics (SPEC §2 statistics; issue 35): the dataset analysis and a test run's analysis of one model. The
 * model is ?id=, else the open one; the tab and the run live in the query so a link can open either.
 */
export default function StatisticsPage() {
  const { t } = useTranslation(['routes', 'statistics']);
  const project = useProject((s) => s.project);
  const [params, setParams] = useSearchParams();
  const modelId = params.get('id') ?? project?.id;
  const tab: StatisticsTab = params.get('tab') === 'test' ? 'test' : 'dataset';
  const testId = Number(params.get('testId')) || undefined;
  // /mark opens the open model's images: its route depends on that model's type.
  const type = project && project.id === modelId ? project.type : undefined;
  const go = (next: StatisticsTab, run?: number) => modelId && setParams(new URLSearchParams(statisticsPath(modelId, next, run).split('?')[1]), { replace: true });
  return (
    <div className="loupe-page" data-testid="statistics-page" data-tab={tab}>
      <Typography.Title level={3} data-testid="page-title">
        {t('statistics')}
      </Typography.Title>
      {!modelId ? (
        <NoProject />
      ) : (
        <Tabs
          activeKey={tab}
          onChange={(key) => go(key as StatisticsTab, testId)}
          destroyOnHidden
          items={[
            { key: 'dataset', label: <span data-testid="statistics-tab-dataset">{t('statistics:tabs.dataset')}</span>, children: <DatasetTab key={modelId} modelId={modelId} type={type} /> },
            {
              key: 'test',
              label: <span data-testid="statistics-tab-test">{t('statistics:tabs.test')}</span>,
              children: <TestTab key={modelId} modelId={modelId} type={type} testId={testId} onTestId={(id) => go('test', id)} />,
            },
          ]}
        />
      )}
    </div>
  );
}
