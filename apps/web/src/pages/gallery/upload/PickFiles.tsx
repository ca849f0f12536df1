import { useRef } from 'react';
import { Alert, Button, Radio, Space, Typography } from 'antd';
import { FolderOpenOutlined, PictureOutlined } from '@ant-design/icons';
import { useTranslation } from '@/i18n';
import { IMAGE_ACCEPT, type UploadMode } from './modes';
import { formatBytes } from './format';

interface Props {
  mode: UploadMode;
  several: boolean;
  onSeveral: (several: boolean) => void;
  onFiles: (files: File[]) => void;
  count: number;
  bytes: number;
  labels: string[];
}

/** Step two: pick images, or a folder of class folders; the input is cleared so the same pick can repeat. */
export function PickFiles({ mode, several, onSeveral, onFiles, count, bytes, labels }: Props) {
  const { t } = useTranslation('gallery');
  const input = useRef<HTMLInputElement>(null);
  const folders = mode === 'folders';
  const pick = (e: React.ChangeEvent<HTMLInputElement>) => {
    onFiles(Array.from(e.target.files ?? []));
    e.target.value = '';
  };
  return (
    <Space orientation="vertical" style={{ width: '100%' }} size="middle">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t(`upload.hints.${mode}`)} {t('upload.hints.limits', { types: IMAGE_ACCEPT.replaceAll(',', ' ') })}
      </Typography.Paragraph>
      {folders && (
        <Radio.Group value={several} onChange={(e) => onSeveral(e.target.value as boolean)}>
          <Radio value={false} data-testid="upload-folder-single">
            {t('upload.folderSingle')}
          </Radio>
          <Radio value={true} data-testid="upload-folder-several">
            {t('upload.folderSeveral')}
          </Radio>
        </Radio.Group>
      )}
      <input
        ref={input}
        type="file"
        multiple
        hidden
        accept={folders ? undefined : IMAGE_ACCEPT}
        onChange={pick}
        data-testid={folders ? 'upload-folder-input' : 'upload-file-input'}
        {...(folders ? { webkitdirectory: '', directory: '' } : {})}
      />
      <Button icon={folders ? <FolderOpenOutlined /> : <PictureOutlined />} onClick={() => input.current?.click()} data-testid="upload-pick">
        {t(folders ? 'upload.pickFolder' : 'upload.pickImages')}
      </Button>
      {count > 0 && (
        <Alert
          type="info"
          showIcon
          data-testid="upload-selection"
          title={t('upload.selected', { count, size: formatBytes(bytes) })}
          description={folders && labels.length > 0 ? t('upload.labels', { labels: labels.join(', ') }) : undefined}
        />
      )}
    </Space>
  );
}
