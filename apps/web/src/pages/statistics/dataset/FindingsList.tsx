import { Link } from 'react-router-dom';
import { Button, Card, Empty, Popconfirm, Space, Tag, Typography, type ButtonProps } from 'antd';
import { ToolOutlined } from '@ant-design/icons';
import { DatasetPaths, FindingSeverities, type DatasetAnalysisData, type Finding, type FindingSeverity } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { pathOf } from '@/pages/gallery/galleryApi';
import { stepPath } from '@/routes/steps';
import { useFix } from '../statisticsApi';

/** Thumbnails shown per finding; the rest are counted ("+12 more"). */
export const THUMBS_SHOWN = 8;
export const SEVERITY_COLOR: Record<FindingSeverity, string> = { error: 'red', warning: 'orange', info: 'blue' };

/** A finding's message values: its own params plus `n`, the number of items it concerns. */
export const messageVars = (f: Finding) => ({ ...f.params, n: f.count });

interface Props {
  analysis: DatasetAnalysisData;
  modelId: string;
  /** The open model's type (which /mark route opens an image); undefined when the analysed model is not the open one. */
  type: string | undefined;
}

function Thumbs({ ids, modelId, type }: { ids: readonly number[]; modelId: string; type: string | undefined }) {
  const { t } = useTranslation('statistics');
  if (ids.length === 0) return null;
  const thumb = (id: number) => <img src={pathOf(DatasetPaths.thumbnail, { modelId, imageId: id })} alt={t('findings.openImage', { id })} loading="lazy" />;
  return (
    <Space wrap size={4} className="loupe-stat-thumbs">
      {ids.slice(0, THUMBS_SHOWN).map((id) =>
        // /mark labels the open model: another model's images are shown, not linked.
        type ? (
          <Link key={id} to={`${stepPath('mark', type)}?imageId=${id}`} title={t('findings.openImage', { id })} data-testid={`finding-image-${id}`}>
            {thumb(id)}
          </Link>
        ) : (
          <span key={id} data-testid={`finding-image-${id}`}>
            {thumb(id)}
          </span>
        ),
      )}
      {ids.length > THUMBS_SHOWN && <Typography.Text type="secondary">{t('findings.more', { n: ids.length - THUMBS_SHOWN })}</Typography.Text>}
    </Space>
  );
}

function FindingItem({ finding, analysis, modelId, type }: { finding: Finding } & Props) {
  const { t } = useTranslation('statistics');
  const showError = useShowError();
  const { message } = useNotify();
  const fix = useFix(modelId);
  const apply = async () => {
    if (!finding.fix) return;
    try {
      const done = await fix.mutateAsync({ analysisId: analysis.id, fix: finding.fix });
      void message.success(t('findings.fixed', { n: done.fixed }));
    } catch (e) {
      showError(e);
    }
  };
  return (
    <div className="loupe-stat-finding" data-testid={`finding-${finding.code}`} data-severity={finding.severity} data-count={finding.count}>
      <Space wrap align="start" style={{ justifyContent: 'space-between', width: '100%' }}>
        <Space wrap>
          <Tag color={SEVERITY_COLOR[finding.severity]}>{t(`severity.${finding.severity}`)}</Tag>
          <Typography.Text data-testid={`finding-message-${finding.code}`}>{t(`finding.${finding.code}`, messageVars(finding))}</Typography.Text>
          <Tag>{t('findings.count', { n: finding.count })}</Tag>
        </Space>
        {finding.fix && (
          <Popconfirm
            title={t(`findings.fix.${finding.fix}`)}
            description={t('findings.confirm')}
            okText={t('findings.confirmOk')}
            cancelText={t('findings.cancel')}
            okButtonProps={{ 'data-testid': 'finding-fix-confirm' } as ButtonProps}
            onConfirm={apply}
            disabled={analysis.stale}
          >
            <Button
              size="small"
              icon={<ToolOutlined />}
              loading={fix.isPending}
              disabled={analysis.stale}
              title={analysis.stale ? t('findings.staleFix') : undefined}
              data-testid={`finding-fix-${finding.code}`}
            >
              {t(`findings.fix.${finding.fix}`)}
            </Button>
          </Popconfirm>
        )}
      </Space>
      <Thumbs ids={finding.imageIds} modelId={modelId} type={type} />
    </div>
  );
}

/** The health check's findings, errors first, each with its images and its one-click fix where one is safe. */
export function FindingsList({ analysis, modelId, type }: Props) {
  const { t } = useTranslation('statistics');
  const findings = analysis.result?.findings ?? [];
  return (
    <Card size="small" title={t('findings.title')} data-testid="statistics-findings" data-count={findings.length}>
      {findings.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('findings.none')} />
      ) : (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          {FindingSeverities.flatMap((severity) => findings.filter((f) => f.severity === severity)).map((f) => (
            <FindingItem key={f.code} finding={f} analysis={analysis} modelId={modelId} type={type} />
          ))}
        </Space>
      )}
    </Card>
  );
}
