import { useEffect, useRef, useState } from 'react';
import { Button, Card, Col, Modal, Row, Steps, Typography } from 'antd';
import { AppstoreAddOutlined, DatabaseOutlined, FileImageOutlined, FileZipOutlined, FolderOutlined } from '@ant-design/icons';
import { ImageUploadField, type AnnotationImportData, type ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useGalleryInvalidate } from '../galleryApi';
import { AnnotationZip } from './AnnotationZip';
import { modesFor, uploadUrl, IMAGE_RULES, type UploadMode } from './modes';
import { PickFiles } from './PickFiles';
import { precheck, readFolders, type Refusal } from './precheck';
import { displayName } from './queue';
import { useRefusalText } from './refusalText';
import { UploadProgress } from './UploadProgress';
import { UploadSummary, type SummaryRow } from './UploadSummary';
import { useUploadQueue } from './useUploadQueue';
import { imageTransport } from './xhrTransport';

type Step = 'mode' | 'pick' | 'upload' | 'zip' | 'summary';

interface Props {
  open: boolean;
  modelId: string;
  type: ModelType | undefined;
  onClose: () => void;
}

const MODE_ICONS: Record<UploadMode, React.ReactNode> = {
  images: <FileImageOutlined />,
  imagesWithAnnotations: <FileZipOutlined />,
  unclassified: <AppstoreAddOutlined />,
  folders: <FolderOutlined />,
  labelledZip: <DatabaseOutlined />,
};

/** The wizard's steps per mode: a labelled ZIP goes straight to the ZIP, its images inside it. */
function stepsOf(mode: UploadMode): Step[] {
  if (mode === 'labelledZip') return ['mode', 'zip', 'summary'];
  return mode === 'imagesWithAnnotations' ? ['mode', 'pick', 'upload', 'zip', 'summary'] : ['mode', 'pick', 'upload', 'summary'];
}

/** The gallery's upload wizards in one modal (SPEC §2): choose how, pick, send with progress, summary. */
export function UploadWizard(props: Props) {
  // A fresh wizard (and queue) each time the dialog opens.
  const [run, setRun] = useState(0);
  return (
    <Modal
      open={props.open}
      title={null}
      width={760}
      footer={null}
      mask={{ closable: false }}
      onCancel={props.onClose}
      afterClose={() => setRun((r) => r + 1)}
      destroyOnHidden
      data-testid="upload-wizard"
    >
      <Wizard key={run} {...props} />
    </Modal>
  );
}

function Wizard({ modelId, type, onClose }: Props) {
  const { t } = useTranslation('gallery');
  const refusalText = useRefusalText();
  const invalidate = useGalleryInvalidate(modelId);
  const [step, setStep] = useState<Step>('mode');
  const [mode, setMode] = useState<UploadMode>('images');
  const [several, setSeveral] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  const [labels, setLabels] = useState<string[]>([]);
  const [annotations, setAnnotations] = useState<AnnotationImportData | null>(null);
  // The transport reads these at send time; a folder file is sent as `<label>/<file>` (contracts).
  const labelOf = useRef(new Map<File, string>());
  const modeRef = useRef(mode);
  const [transport] = useState(() =>
    (...args: Parameters<ReturnType<typeof imageTransport>>) =>
      imageTransport(uploadUrl(modeRef.current, modelId), ImageUploadField, (f) =>
        modeRef.current === 'folders' ? `${labelOf.current.get(f) ?? ''}/${f.name}` : f.name,
      )(...args),
  );
  const { queue, snapshot } = useUploadQueue(transport);
  // Closing the dialog mid-upload stops what is left and refreshes the gallery with what arrived.
  useEffect(
    () => () => {
      queue.cancel();
      void invalidate();
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on unmount
    [],
  );
  const finished = snapshot.items.length > 0 && snapshot.counts.waiting + snapshot.counts.uploading === 0;

  const chooseMode = (next: UploadMode) => {
    setMode(next);
    modeRef.current = next;
    setStep(next === 'labelledZip' ? 'zip' : 'pick');
  };

  const addFiles = (picked: File[]) => {
    let candidates = picked;
    const refused: Refusal[] = [];
    if (mode === 'folders') {
      const folders = readFolders(picked, several);
      folders.files.forEach((f) => labelOf.current.set(f.file, f.label));
      candidates = folders.files.map((f) => f.file);
      refused.push(...folders.refused);
      setLabels((l) => [...new Set([...l, ...folders.labels])].sort());
    }
    const checked = precheck(candidates, IMAGE_RULES);
    // Picking the same file twice sends it once.
    const known = new Set(files.map(displayName));
    setFiles([...files, ...checked.accepted.filter((f) => !known.has(displayName(f)))]);
    setRefusals((r) => [...r, ...refused, ...checked.refused]);
  };

  const start = async () => {
    setStep('upload');
    queue.add(files);
    await queue.start();
    void invalidate();
  };

  const retry = async () => {
    await queue.retryFailed();
    void invalidate();
  };

  const onImported = (result: AnnotationImportData) => {
    setAnnotations(result);
    setStep('summary');
    // The label panel and the labeled counts behind the summary change with the import.
    void invalidate();
  };

  const summaryRows = (): SummaryRow[] => {
    const s = queue.summary();
    return [
      ...refusals.map((r) => ({ name: r.name, reason: refusalText(r), source: 'precheck' as const })),
      ...s.refused.map((r) => ({ ...r, source: 'server' as const })),
      ...s.failed.map((r) => ({ ...r, source: 'failed' as const })),
      ...(annotations?.results ?? [])
        .filter((r) => r.status === 'refused')
        .map((r) => ({ name: r.name, reason: r.message ?? '', source: 'annotation' as const })),
    ];
  };

  const steps = stepsOf(mode);
  const zipOnly = mode === 'labelledZip';
  const bytes = files.reduce((sum, f) => sum + f.size, 0);

  return (
    <div>
      <Typography.Title level={4}>{t('upload.title')}</Typography.Title>
      <Steps
        size="small"
        current={steps.indexOf(step)}
        items={steps.map((s) => ({ title: t(`upload.steps.${s}`) }))}
        style={{ marginBottom: 20 }}
      />
      {step === 'mode' && (
        <Row gutter={[12, 12]}>
          {modesFor(type).map((m) => (
            // The labelled ZIP is the third way in: a row of its own under the two upload ways.
            <Col xs={24} sm={m === 'labelledZip' ? 24 : 12} key={m}>
              <Card hoverable onClick={() => chooseMode(m)} data-testid={`upload-mode-${m}`} style={{ height: '100%' }}>
                <Card.Meta avatar={<span style={{ fontSize: 24 }}>{MODE_ICONS[m]}</span>} title={t(`upload.modes.${m}.title`)} description={t(`upload.modes.${m}.text`)} />
              </Card>
            </Col>
          ))}
        </Row>
      )}
      {step === 'pick' && (
        <PickFiles mode={mode} several={several} onSeveral={setSeveral} onFiles={addFiles} count={files.length} bytes={bytes} labels={labels} />
      )}
      {step === 'upload' && <UploadProgress snapshot={snapshot} />}
      {step === 'zip' && <AnnotationZip modelId={modelId} type={type} carriesImages={zipOnly} onImported={onImported} />}
      {step === 'summary' && <UploadSummary accepted={snapshot.counts.done} rows={summaryRows()} annotations={annotations} zipOnly={zipOnly} />}

      <div className="loupe-wizard-footer" style={{ display: 'flex', gap: 8, justifyContent: 'flex-end', marginTop: 20 }}>
        {step === 'pick' && (
          <>
            {refusals.length > 0 && (
              <Typography.Text type="warning" style={{ marginRight: 'auto' }} data-testid="upload-precheck-refused">
                {t('upload.precheckRefused', { count: refusals.length })}
              </Typography.Text>
            )}
            <Button onClick={() => setStep('mode')}>{t('upload.back')}</Button>
            {/* Images already in the model: the ZIP may follow an earlier upload. */}
            {mode === 'imagesWithAnnotations' && files.length === 0 && (
              <Button onClick={() => setStep('zip')} data-testid="upload-skip-images">
                {t('upload.skipImages')}
              </Button>
            )}
            <Button type="primary" disabled={files.length === 0} onClick={() => void start()} data-testid="upload-start">
              {t('upload.start', { count: files.length })}
            </Button>
          </>
        )}
        {step === 'upload' && (
          <>
            {snapshot.running && (
              <Button onClick={() => queue.cancel(t('upload.cancelled'))} data-testid="upload-cancel">
                {t('upload.stop')}
              </Button>
            )}
            {finished && snapshot.counts.failed > 0 && (
              <Button onClick={() => void retry()} data-testid="upload-retry">
                {t('upload.retry', { count: snapshot.counts.failed })}
              </Button>
            )}
            <Button type="primary" disabled={!finished} onClick={() => setStep(mode === 'imagesWithAnnotations' ? 'zip' : 'summary')} data-testid="upload-next">
              {t('upload.next')}
            </Button>
          </>
        )}
        {step === 'zip' && zipOnly && (
          <Button onClick={() => setStep('mode')} data-testid="upload-zip-back">
            {t('upload.back')}
          </Button>
        )}
        {step === 'zip' && !zipOnly && (
          <Button onClick={() => setStep('summary')} data-testid="upload-skip-zip">
            {t('upload.skipZip')}
          </Button>
        )}
        {step === 'summary' && (
          <Button type="primary" onClick={onClose} data-testid="upload-close">
            {t('upload.close')}
          </Button>
        )}
      </div>
    </div>
  );
}
