import { useState } from 'react';
import { Link } from 'react-router-dom';
import { Alert, Button, Card, Radio, Select, Space, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { exportFormatsFor, Splits, type ExportFormat, type ModelType, type Split } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { MODEL_LIST_PATH } from '@/routes/table';
import { useProject } from '@/stores/project';
import { downloadFile, exportUrl } from './exportDownload';

/** The format offered first: LabelMe for polygons, which its users edit; COCO elsewhere. */
function defaultFormat(type: ModelType | undefined): ExportFormat {
  return type === 'SEGMENTATION' ? 'labelme' : 'coco';
}

/**
 * /download/downloadImage: the open model's images and annotations as a ZIP in each format its shapes fit
 * (contracts exportFormatsFor); classification models download class folders whatever the format.
 */
export default function DownloadImage() {
  const { t } = useTranslation('gallery');
  const { message } = useNotify();
  const project = useProject((s) => s.project);
  const [format, setFormat] = useState<ExportFormat>(defaultFormat(project?.type));
  const [split, setSplit] = useState<Split | 'all'>('all');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (!project) {
    return <Alert type="info" showIcon title={t('noProject')} action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>} />;
  }

  const formats = exportFormatsFor(project.type);
  const classification = project.type === 'classification';

  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      await downloadFile(exportUrl(project.id, format, split === 'all' ? undefined : split));
      void message.success(t('export.started'));
    } catch (e) {
      if (!isApiError(e) || !e.handled) setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title={t('export.title')} className="loupe-page" data-testid="download-images">
      <Typography.Paragraph type="secondary">{t('export.intro')}</Typography.Paragraph>
      <Space orientation="vertical" size="large" style={{ width: '100%' }}>
        {classification ? (
          <Typography.Paragraph data-testid="export-class-folders" style={{ marginBottom: 0 }}>
            {t('export.classFolders')}
          </Typography.Paragraph>
        ) : (
          <div>
            <Typography.Text strong>{t('export.format')}</Typography.Text>
            <Radio.Group value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)} style={{ display: 'block', marginTop: 8 }}>
              <Space orientation="vertical">
                {formats.map((f) => (
                  <Radio key={f} value={f} data-testid={`export-format-${f}`}>
                    <Typography.Text>{t(`formats.${f}`)}</Typography.Text>{' '}
                    <Typography.Text type="secondary">{t(`export.formatText.${f}`)}</Typography.Text>
                  </Radio>
                ))}
              </Space>
            </Radio.Group>
          </div>
        )}
        <Space>
          <Typography.Text strong>{t('export.split')}</Typography.Text>
          <Select<Split | 'all'>
            value={split}
            style={{ minWidth: 180 }}
            onChange={setSplit}
            options={[{ value: 'all' as const, label: t('export.allSplits') }, ...Splits.map((s) => ({ value: s, label: t(`splits.${s}`) }))]}
            data-testid="export-split"
          />
        </Space>
        {error && <Alert type="error" showIcon title={error} data-testid="export-error" />}
        <Button type="primary" icon={<DownloadOutlined />} loading={busy} onClick={() => void download()} data-testid="export-download">
          {t('export.download')}
        </Button>
      </Space>
    </Card>
  );
}
