import { Link } from 'react-router-dom';
import { Alert, Select, Space, Tag, Typography } from 'antd';
import { BarChartOutlined } from '@ant-design/icons';
import type { TestRunData, TestSettings, TestStatus } from '@loupe/contracts';
import type { TFunction } from 'i18next';
import { useTranslation } from '@/i18n';
import { versionTag } from '@/layout/sidebar/rules';
import { statisticsPath } from '@/pages/statistics/paths';
import { isDetection, type Task } from '@/pages/training/shared/tasks';

const STATUS_COLOR: Partial<Record<TestStatus, string>> = { succeeded: 'success', failed: 'error', cancelled: 'warning' };

interface Props {
  runs: readonly TestRunData[];
  selected: TestRunData | undefined;
  /** What the selected run's version learned: NMS settings mean nothing to a classifier or segmenter. */
  task: Task;
  onSelect: (id: number) => void;
}

function runLabel(run: TestRunData, locale: string): string {
  const when = new Date(run.startedAt).toLocaleString(locale);
  return `#${run.id} · ${versionTag(run.version) ?? run.version} · ${when}`;
}

/** The settings a run used, in words: the form may since show others (a run of another version, a changed value). */
export function settingsText(settings: TestSettings, task: Task, t: TFunction): string {
  const parts = [t('history.conf', { value: settings.conf })];
  if (isDetection(task)) parts.push(t('history.iou', { value: settings.iou }));
  if (isDetection(task) && settings.agnostic) parts.push(t('settings.agnostic'));
  if (settings.half) parts.push(t('settings.half'));
  if (settings.tta !== 'off') parts.push(`${t('settings.tta')}: ${t(`settings.ttaModes.${settings.tta}`)}`);
  return parts.join(' · ');
}

/** Which finished run the results below show, with the settings it used, and how it ended. */
export function RunHistory({ runs, selected, task, onSelect }: Props) {
  const { t, i18n } = useTranslation(['testing', 'models', 'statistics']);
  if (!selected) return null;
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <Space wrap>
        <Typography.Text strong>{t('history.label')}</Typography.Text>
        <Select<number>
          value={selected.id}
          onChange={onSelect}
          style={{ minWidth: 280 }}
          options={runs.map((r) => ({ value: r.id, label: `${runLabel(r, i18n.language)} · ${t(`models:testStatus.${r.status}`)}` }))}
          data-testid="test-run-select"
        />
        <Tag color={STATUS_COLOR[selected.status]} data-testid="test-status" data-status={selected.status}>
          {t(`models:testStatus.${selected.status}`)}
        </Tag>
        {selected.status === 'succeeded' && (
          <Link to={statisticsPath(selected.modelId, 'test', selected.id)} data-testid="test-statistics-link">
            <BarChartOutlined /> {t('statistics:testPage.statistics')}
          </Link>
        )}
      </Space>
      <Typography.Text type="secondary" data-testid="test-run-settings">
        {settingsText(selected.settings, task, t)}
      </Typography.Text>
      {(selected.status === 'failed' || selected.status === 'cancelled') && (
        <Alert type="warning" showIcon title={t(`history.${selected.status}`)} description={selected.error ?? undefined} data-testid="test-error" />
      )}
    </Space>
  );
}
