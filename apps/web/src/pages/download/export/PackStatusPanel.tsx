import { Alert, Button, Descriptions, Empty, Result, Space, Spin, Typography } from 'antd';
import { DownloadOutlined, ReloadOutlined } from '@ant-design/icons';
import type { PackStatusData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { versionTag } from '@/layout/sidebar/rules';
import { formatBytes } from '@/pages/gallery/upload/format';

interface Props {
  status: PackStatusData;
  downloading: boolean;
  onDownload: () => void;
  reexporting: boolean;
  onReexport: () => void;
}

function PackFacts({ status }: { status: PackStatusData }) {
  const { t } = useTranslation('download');
  const items = [
    status.version && { key: 'version', label: t('status.version'), children: versionTag(status.version) ?? status.version },
    status.inputW && status.inputH && { key: 'size', label: t('status.camera'), children: `${status.inputW} × ${status.inputH}` },
    status.maxDet && { key: 'maxDet', label: t('form.maxDet'), children: status.maxDet },
    status.sdkType && { key: 'sdk', label: t('form.sdkType'), children: t(`sdk.${status.sdkType}`) },
    { key: 'rotated', label: t('form.rotated'), children: t(status.rotated ? 'form.rotatedYes' : 'form.rotatedNo') },
    status.bytes !== null && { key: 'bytes', label: t('status.bytes'), children: formatBytes(status.bytes) },
  ].filter(Boolean) as { key: string; label: string; children: React.ReactNode }[];
  return <Descriptions size="small" column={1} items={items} />;
}

/** SPEC §4 export states: not exported, packing (5–10 minutes), success (download now), failed (re-export). */
export function PackStatusPanel({ status, downloading, onDownload, reexporting, onReexport }: Props) {
  const { t } = useTranslation('download');
  let body: React.ReactNode;
  switch (status.packStatus) {
    case 'none':
      body = <Empty description={t('status.none')} data-testid="pack-none" />;
      break;
    case 'packing':
      body = (
        <Space orientation="vertical" style={{ width: '100%', textAlign: 'center', padding: 16 }}>
          <Spin size="large" />
          <Typography.Text strong>{t('status.packing')}</Typography.Text>
          <Typography.Text type="secondary" data-testid="pack-estimate">
            {t('status.estimate')}
          </Typography.Text>
          <PackFacts status={status} />
        </Space>
      );
      break;
    case 'success':
      body = (
        <Result
          status="success"
          title={t('status.success')}
          subTitle={status.fileName ?? undefined}
          style={{ padding: '16px 0' }}
          extra={
            <Button type="primary" size="large" icon={<DownloadOutlined />} loading={downloading} onClick={onDownload} data-testid="pack-download">
              {t('status.downloadNow')}
            </Button>
          }
        >
          <PackFacts status={status} />
        </Result>
      );
      break;
    default:
      body = (
        <Alert
          type="warning"
          showIcon
          title={t('status.failed')}
          description={status.error ?? t('status.failedHint')}
          action={
            <Button icon={<ReloadOutlined />} loading={reexporting} onClick={onReexport} data-testid="pack-reexport">
              {t('status.reexport')}
            </Button>
          }
        />
      );
  }
  return (
    <div data-testid="pack-status" data-status={status.packStatus} data-pack-id={status.id ?? ''}>
      {body}
    </div>
  );
}
