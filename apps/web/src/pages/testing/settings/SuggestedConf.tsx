import { Link } from 'react-router-dom';
import { Button, Space, Typography } from 'antd';
import type { SuggestedConfidences } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { statisticsPath } from '@/pages/statistics/paths';

const two = (v: number) => v.toFixed(2);

interface Props {
  modelId: string;
  suggested: SuggestedConfidences;
  /** Puts a confidence into the form's field. */
  onUse: (conf: number) => void;
}

/**
 * The confidences the agent's auto test suggested for the chosen version (issue 35): the best-F1 one with a
 * button that puts it into the field, the NG recall one when a confidence reaches the target, and the run's
 * statistics.
 */
export function SuggestedConf({ modelId, suggested, onUse }: Props) {
  const { t } = useTranslation('statistics');
  const { f1, recall } = suggested;
  const conf = Math.round(f1.overall * 100) / 100;
  const parts = [t('testPage.suggested', { conf: two(f1.overall), f1: two(f1.f1) })];
  if (recall.conf !== null) parts.push(t('testPage.recall', { target: Math.round(recall.target * 100), conf: two(recall.conf) }));
  return (
    <Space wrap size={4} style={{ marginBottom: 16 }} data-testid="suggested-conf" data-value={conf}>
      <Typography.Text type="secondary">{parts.join(' · ')}</Typography.Text>
      <Button size="small" onClick={() => onUse(conf)} data-testid="suggested-conf-use">
        {t('testPage.use')}
      </Button>
      <Link to={statisticsPath(modelId, 'test', suggested.testRunId)} data-testid="suggested-conf-statistics">
        {t('testPage.statistics')}
      </Link>
    </Space>
  );
}
