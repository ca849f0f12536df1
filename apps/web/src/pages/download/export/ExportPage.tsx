import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Alert, Button, Card, Col, Form, Result, Row, Spin, Typography } from 'antd';
import { Errors, type PackKind } from '@loupe/contracts';
import { isApiError } from '@/api/errors';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useSucceededTrainings } from '@/pages/testing/api/trainingsApi';
import { stepPath } from '@/routes/steps';
import { MODEL_LIST_PATH } from '@/routes/table';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import { ExportForm } from './ExportForm';
import { exportBody, initialExportValues, serverProblem, type ExportFormValues } from './exportRules';
import { usePackStatus, useStartPack } from './packApi';
import { downloadPack } from './packDownload';
import { PackStatusPanel } from './PackStatusPanel';

/** /download/downloadModel and /download/downloadSDK: export a version, follow the pack, download it. */
export function ExportPage({ kind }: { kind: PackKind }) {
  const { t } = useTranslation('download');
  const project = useProject((s) => s.project);
  if (!project) {
    return <Alert type="info" showIcon title={t('noProject')} action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>} data-testid="export-no-project" />;
  }
  return <Exporter key={`${project.id}-${kind}`} modelId={project.id} type={project.type} kind={kind} />;
}

function Exporter({ modelId, type, kind }: { modelId: string; type: string; kind: PackKind }) {
  const { t } = useTranslation('download');
  const { message, modal } = useNotify();
  const showError = useShowError();
  const [form] = Form.useForm<ExportFormValues>();
  const user = useSession((s) => s.user);
  const trainings = useSucceededTrainings(modelId);
  const status = usePackStatus(modelId, kind);
  const start = useStartPack(modelId, kind);
  const [downloading, setDownloading] = useState(false);
  const [refused, setRefused] = useState(false);
  const pack = status.data;
  // The form starts once, from the first status and versions to arrive; polling must not reset what the user typed.
  const initial = useMemo(
    () => initialExportValues(pack, trainings.versions),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [pack?.id, trainings.versions],
  );

  const download = async () => {
    if (!pack) return;
    setDownloading(true);
    try {
      await downloadPack(pack);
    } catch (e) {
      if (isApiError(e) && e.code === Errors.noDownloadPermission.code) setRefused(true);
      showError(e);
    } finally {
      setDownloading(false);
    }
  };

  // SPEC §4: a pack that finishes while the page is open prompts to download now; a failure warns.
  const previous = useRef(pack?.packStatus);
  useEffect(() => {
    const was = previous.current;
    previous.current = pack?.packStatus;
    if (was !== 'packing') return;
    if (pack?.packStatus === 'success') {
      modal.confirm({
        title: t('status.success'),
        content: t('status.prompt'),
        okText: t('status.downloadNow'),
        cancelText: t('status.later'),
        okButtonProps: { 'data-testid': 'pack-download-prompt' },
        onOk: () => void download(),
      });
    } else if (pack?.packStatus === 'failed') void message.warning(t('status.failed'));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the transition matters
  }, [pack?.packStatus]);

  const submit = async (values: ExportFormValues) => {
    const training = trainings.versions.find((v) => v.id === values.trainingId);
    try {
      await start.mutateAsync(exportBody(values, Number(modelId), kind, training));
      setRefused(false);
      void message.success(t('status.started'));
    } catch (e) {
      // 8008 gets the client's contact-sales notice; the page keeps saying it beside the form.
      if (isApiError(e) && e.code === Errors.noDownloadPermission.code) setRefused(true);
      const problem = isApiError(e) && e.code === Errors.exportFailed.code ? serverProblem(e.data) : null;
      if (problem) form.setFields([{ name: problem.field, errors: [t(`rules.${problem.reason}`)] }]);
      else showError(e);
      // Another export of this model is running: show where it stands.
      if (isApiError(e) && e.code === Errors.exportInProgress.code) void status.refetch();
    }
  };

  const noPermission = refused || user?.downloadPermission === false;
  let statusBody: React.ReactNode;
  if (status.isPending) statusBody = <Spin data-testid="pack-loading" />;
  else if (status.isError || !pack)
    statusBody = (
      <Result
        status="warning"
        title={t('status.loadFailed')}
        extra={
          <Button onClick={() => void status.refetch()} data-testid="pack-retry">
            {t('status.retry')}
          </Button>
        }
        data-testid="pack-error"
      />
    );
  else
    statusBody = (
      <PackStatusPanel status={pack} downloading={downloading} onDownload={() => void download()} reexporting={start.isPending} onReexport={() => form.submit()} />
    );

  return (
    <div className="loupe-page" data-testid={`download-${kind}`}>
      <Typography.Title level={3} data-testid="page-title">
        {t(`title.${kind}`)}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t(`intro.${kind}`)}</Typography.Paragraph>
      {noPermission && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={t('noPermission')}
          description={user?.salesman ? t('salesman', { salesman: user.salesman }) : undefined}
          data-testid="export-no-permission"
        />
      )}
      {!trainings.isPending && trainings.versions.length === 0 && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 16 }}
          title={t('noVersion')}
          action={<Link to={stepPath('train', type)}>{t('toTrain')}</Link>}
          data-testid="export-no-training"
        />
      )}
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <Card size="small" title={t('form.title')}>
            <ExportForm
              form={form}
              kind={kind}
              initial={initial}
              versions={trainings.versions}
              versionsLoading={trainings.isPending}
              packing={pack?.packStatus === 'packing'}
              submitting={start.isPending}
              onSubmit={(v) => void submit(v)}
            />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card size="small" title={t('status.title')}>
            {statusBody}
          </Card>
        </Col>
      </Row>
    </div>
  );
}
