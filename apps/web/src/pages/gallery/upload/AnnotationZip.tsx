import { useRef, useState } from 'react';
import { Alert, Button, Progress, Space, Typography } from 'antd';
import { FileZipOutlined } from '@ant-design/icons';
import { AnnotationUploadField, DatasetPaths, Limits, type AnnotationImportData, type ModelType } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { pathOf } from '../galleryApi';
import { annotationFormatsFor } from './modes';
import { xhrPost } from './xhrTransport';

interface Props {
  modelId: string;
  type: ModelType | undefined;
  /**
   * The "labelled dataset" mode: the ZIP may carry its images (a Roboflow, CVAT or Ultralytics export, class
   * folders) and comes without an image upload before it; otherwise it follows the images it annotates.
   */
  carriesImages?: boolean;
  onImported: (result: AnnotationImportData) => void;
}

/** The ZIP step: annotations matched to the gallery's images by file name, and any images the ZIP carries. */
export function AnnotationZip({ modelId, type, carriesImages = false, onImported }: Props) {
  const { t } = useTranslation('gallery');
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [percent, setPercent] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const send = async () => {
    if (!file) return;
    // The server refuses a request over the upload limit as a whole; say so before sending 500 MB for nothing.
    if (file.size > Limits.uploadMaxBytes) {
      setError(t('errors:uploadTooLarge'));
      return;
    }
    setError(null);
    setPercent(0);
    const body = new FormData();
    body.append(AnnotationUploadField, file, file.name);
    try {
      const result = await xhrPost<AnnotationImportData>(
        pathOf(DatasetPaths.uploadAnnotations, { modelId }),
        body,
        (loaded) => setPercent(Math.min(99, Math.floor((loaded / file.size) * 100))),
      );
      setPercent(100);
      onImported(result);
    } catch (e) {
      setPercent(null);
      if (!isApiError(e) || !e.handled) setError(e instanceof Error ? e.message : String(e));
    }
  };

  const formats = annotationFormatsFor(type)
    .map((f) => t(`importFormats.${f}`))
    .join(', ');
  const hint = !carriesImages ? 'upload.zipHint' : type === 'classification' ? 'upload.zipHintClasses' : 'upload.zipHintDataset';
  return (
    <Space orientation="vertical" style={{ width: '100%' }} size="middle" data-testid="upload-zip-step">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t(hint, { formats })}
      </Typography.Paragraph>
      <input
        ref={input}
        type="file"
        hidden
        accept=".zip,application/zip"
        data-testid="upload-zip-input"
        onChange={(e) => {
          setFile(e.target.files?.[0] ?? null);
          setError(null);
          e.target.value = '';
        }}
      />
      <Space wrap>
        <Button icon={<FileZipOutlined />} onClick={() => input.current?.click()} data-testid="upload-zip-pick">
          {file ? file.name : t('upload.pickZip')}
        </Button>
        <Button type="primary" disabled={!file || percent !== null} onClick={() => void send()} data-testid="upload-zip-start">
          {t(carriesImages ? 'upload.sendDataset' : 'upload.sendZip')}
        </Button>
      </Space>
      {percent !== null && <Progress percent={percent} status={percent < 100 ? 'active' : 'success'} data-testid="upload-zip-progress" />}
      {error && <Alert type="error" showIcon title={error} data-testid="upload-zip-error" />}
    </Space>
  );
}
