import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Card, Col, Empty, Row, Select, Slider, Space, Typography } from 'antd';
import type { TestAnalysisData, TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { versionTag } from '@/layout/sidebar/rules';
import { LoadError, Loading } from '@/pages/training/shared/PageStates';
import { stepPath } from '@/routes/steps';
import { useFinishedRuns, useTestAnalysis } from '../statisticsApi';
import { ClassTable } from './ClassTable';
import { SuggestedPanel } from './SuggestedPanel';
import { TestCharts } from './TestCharts';
import { useDebounced } from './useDebounced';

/** How long the confidence slider must rest before the figures are asked for again. */
export const CONF_DEBOUNCE_MS = 300;

interface Props {
  modelId: string;
  type: string | undefined;
  testId: number | undefined;
  onTestId: (id: number) => void;
}

function RunPicker({ runs, value, onChange }: { runs: readonly TestRunData[]; value: number; onChange: (id: number) => void }) {
  const { t, i18n } = useTranslation('statistics');
  return (
    <Space wrap>
      <Typography.Text strong>{t('test.run')}</Typography.Text>
      <Select<number>
        value={value}
        onChange={onChange}
        style={{ minWidth: 300 }}
        data-testid="statistics-test-run"
        options={runs.map((r) => ({
          value: r.id,
          label: t('test.runOption', { id: r.id, version: versionTag(r.version) ?? r.version, when: new Date(r.startedAt).toLocaleString(i18n.language) }),
        }))}
      />
    </Space>
  );
}

/** The confidence slider, from the lowest confidence the run kept to 1. */
function ConfSlider({ data, value, onChange }: { data: TestAnalysisData; value: number; onChange: (v: number) => void }) {
  const { t } = useTranslation('statistics');
  return (
    <Space orientation="vertical" style={{ width: '100%' }} size={0}>
      <Typography.Text strong>
        {t('test.conf')}: <span data-testid="statistics-conf-value">{value.toFixed(2)}</span>
      </Typography.Text>
      <div data-testid="statistics-conf" data-value={value}>
        <Slider min={data.minConf} max={1} step={0.01} value={value} onChange={onChange} />
      </div>
      <Typography.Text type="secondary">{t('test.confHelp', { min: data.minConf.toFixed(2) })}</Typography.Text>
    </Space>
  );
}

/** One run's analysis at a confidence the user moves; the figures follow once the slider rests. */
function RunAnalysis({ modelId, testId }: { modelId: string; testId: number }) {
  const { t } = useTranslation('statistics');
  const [conf, setConf] = useState<number>();
  const asked = useDebounced(conf, CONF_DEBOUNCE_MS);
  const query = useTestAnalysis(modelId, testId, asked);
  if (query.isPending) return <Loading testId="statistics-test-loading" />;
  if (query.isError) return <LoadError error={query.error} onRetry={() => void query.refetch()} testId="statistics-test-error" />;
  const data = query.data;
  const hasGt = data.perClass.some((c) => c.support > 0);
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="statistics-test" data-conf={data.conf} data-task={data.task}>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card size="small">
            <ConfSlider data={data} value={conf ?? data.conf} onChange={setConf} />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <SuggestedPanel suggested={data.suggested} />
        </Col>
      </Row>
      {!hasGt && <Empty description={t('test.noGt')} data-testid="statistics-test-no-gt" />}
      <Card size="small" aria-busy={query.isPlaceholderData}>
        <ClassTable rows={data.perClass} />
      </Card>
      <TestCharts data={data} />
    </Space>
  );
}

/** The test tab: pick a finished run of the model, then its analysis. */
export function TestTab({ modelId, type, testId, onTestId }: Props) {
  const { t } = useTranslation('statistics');
  const runs = useFinishedRuns(modelId);
  if (runs.isPending) return <Loading testId="statistics-runs-loading" />;
  if (runs.isError) return <LoadError error={runs.error} onRetry={() => void runs.refetch()} testId="statistics-runs-error" />;
  if (runs.data.length === 0) {
    return (
      <Empty description={t('test.noRuns')} data-testid="statistics-no-runs">
        <Link to={stepPath('test', type)}>{t('test.toTest')}</Link>
      </Empty>
    );
  }
  const chosen = runs.data.find((r) => r.id === testId) ?? runs.data[0]!;
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <RunPicker runs={runs.data} value={chosen.id} onChange={onTestId} />
      {/* Keyed by run: the slider starts again at the new run's own confidence. */}
      <RunAnalysis key={chosen.id} modelId={modelId} testId={chosen.id} />
    </Space>
  );
}
