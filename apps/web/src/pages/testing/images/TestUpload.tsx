import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Modal, Typography } from 'antd';
import { DatasetPaths, ImageUploadField, type ImageChangeData, type UploadData } from '@loupe/contracts';
import { api } from '@/api/client';
import { useTranslation } from '@/i18n';
import { pathOf, useGalleryInvalidate } from '@/pages/gallery/galleryApi';
import { PickFiles } from '@/pages/gallery/upload/PickFiles';
import { IMAGE_RULES, uploadUrl } from '@/pages/gallery/upload/modes';
import { precheck, type Refusal } from '@/pages/gallery/upload/precheck';
import { displayName, type Transport } from '@/pages/gallery/upload/queue';
import { useRefusalText } from '@/pages/gallery/upload/refusalText';
import { UploadProgress } from '@/pages/gallery/upload/UploadProgress';
import { UploadSummary } from '@/pages/gallery/upload/UploadSummary';
import { useUploadQueue } from '@/pages/gallery/upload/useUploadQueue';
import { outcomesOf, xhrPost } from '@/pages/gallery/upload/xhrTransport';

interface Props {
  open: boolean;
  modelId: string;
  onClose: () => void;
  /** Test the images just uploaded. */
  onTest: (imageIds: number[]) => void;
}

/** Upload images for testing: the gallery's pick, pre-check, queue and summary; each batch goes to the test split. */
export function TestUpload(props: Props) {
  const [run, setRun] = useState(0);
  return (
    <Modal open={props.open} footer={null} width={760} mask={{ closable: false }} onCancel={props.onClose} afterClose={() => setRun((r) => r + 1)} destroyOnHidden data-testid="test-upload">
      <Upload key={run} {...props} />
    </Modal>
  );
}

type Step = 'pick' | 'upload' | 'summary';

function Upload({ modelId, onClose, onTest }: Props) {
  const { t } = useTranslation(['testing', 'gallery']);
  const refusalText = useRefusalText();
  const invalidate = useGalleryInvalidate(modelId);
  const [step, setStep] = useState<Step>('pick');
  const [files, setFiles] = useState<File[]>([]);
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  const [unsplit, setUnsplit] = useState<number[]>([]);
  const accepted = useRef<number[]>([]);

  /** Accepted images go to the test split batch by batch, so closing half-way leaves no stray training images. */
  const toTestSplit = async (ids: number[]) => {
    if (ids.length === 0) return;
    try {
      await api.post<ImageChangeData>(pathOf(DatasetPaths.split, { modelId }), { ids, split: 'test' }, { silent: true });
    } catch {
      setUnsplit((u) => [...u, ...ids]);
    }
  };
  const send: Transport = async (batch, onProgress, signal) => {
    const body = new FormData();
    const names = batch.map((f) => f.name);
    batch.forEach((file, i) => body.append(ImageUploadField, file, names[i]));
    const data = await xhrPost<UploadData>(uploadUrl('images', modelId), body, onProgress, signal);
    const ids = data.results.flatMap((r) => (r.status === 'accepted' && r.imageId ? [r.imageId] : []));
    accepted.current.push(...ids);
    await toTestSplit(ids);
    return outcomesOf(data, names);
  };
  // The queue keeps the transport of its first render; `send` only uses stable state setters and refs.
  const [transport] = useState(() => send);
  const { queue, snapshot } = useUploadQueue(transport);
  useEffect(
    () => () => {
      queue.cancel();
      void invalidate();
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on unmount
    [],
  );
  const finished = snapshot.items.length > 0 && snapshot.counts.waiting + snapshot.counts.uploading === 0;

  const addFiles = (picked: File[]) => {
    const checked = precheck(picked, IMAGE_RULES);
    const known = new Set(files.map(displayName));
    setFiles([...files, ...checked.accepted.filter((f) => !known.has(displayName(f)))]);
    setRefusals((r) => [...r, ...checked.refused]);
  };
  const start = async () => {
    setStep('upload');
    queue.add(files);
    await queue.start();
    void invalidate();
  };
  const retrySplit = async () => {
    const ids = unsplit;
    setUnsplit([]);
    await toTestSplit(ids);
    void invalidate();
  };
  const rows = () => {
    const s = queue.summary();
    return [
      ...refusals.map((r) => ({ name: r.name, reason: refusalText(r), source: 'precheck' as const })),
      ...s.refused.map((r) => ({ ...r, source: 'server' as const })),
      ...s.failed.map((r) => ({ ...r, source: 'failed' as const })),
    ];
  };

  return (
    <div>
      <Typography.Title level={4}>{t('upload.title')}</Typography.Title>
      <Typography.Paragraph type="secondary">{t('upload.intro')}</Typography.Paragraph>
      {step === 'pick' && <PickFiles mode="images" several={false} onSeveral={() => undefined} onFiles={addFiles} count={files.length} bytes={files.reduce((s, f) => s + f.size, 0)} labels={[]} />}
      {step === 'upload' && <UploadProgress snapshot={snapshot} />}
      {step === 'summary' && <UploadSummary accepted={snapshot.counts.done} rows={rows()} annotations={null} />}
      {step === 'summary' && unsplit.length > 0 && (
        <Alert
          type="warning"
          showIcon
          style={{ marginTop: 12 }}
          title={t('upload.unsplit', { count: unsplit.length })}
          action={
            <Button size="small" onClick={() => void retrySplit()} data-testid="test-upload-split-retry">
              {t('results.retry')}
            </Button>
          }
          data-testid="test-upload-unsplit"
        />
      )}
      <div style={{ display: 'flex', gap: 8, justifyContent: 'flex-end', marginTop: 20 }}>
        {step === 'pick' && (
          <>
            {refusals.length > 0 && (
              <Typography.Text type="warning" style={{ marginRight: 'auto' }} data-testid="upload-precheck-refused">
                {t('gallery:upload.precheckRefused', { count: refusals.length })}
              </Typography.Text>
            )}
            <Button type="primary" disabled={files.length === 0} onClick={() => void start()} data-testid="upload-start">
              {t('gallery:upload.start', { count: files.length })}
            </Button>
          </>
        )}
        {step === 'upload' && (
          <>
            {snapshot.running && (
              <Button onClick={() => queue.cancel(t('gallery:upload.cancelled'))} data-testid="upload-cancel">
                {t('gallery:upload.stop')}
              </Button>
            )}
            <Button type="primary" disabled={!finished} onClick={() => setStep('summary')} data-testid="upload-next">
              {t('gallery:upload.next')}
            </Button>
          </>
        )}
        {step === 'summary' && (
          <>
            <Button onClick={onClose} data-testid="upload-close">
              {t('gallery:upload.close')}
            </Button>
            <Button type="primary" disabled={accepted.current.length === 0} onClick={() => onTest([...accepted.current])} data-testid="test-upload-run">
              {t('upload.testThese', { count: accepted.current.length })}
            </Button>
          </>
        )}
      </div>
    </div>
  );
}
