import { useEffect, useRef } from 'react';
import { Link } from 'react-router-dom';
import { Alert, App, Button, Card, Popconfirm, Progress, Space, Tag, Typography } from 'antd';
import type { TrainingData, TrainingDetailData, TrainingStateEvent } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { DASH, duration } from '../shared/format';
import { usePatchListedTraining, useStopTraining, useTrainingDetail } from '../trainingApi';
import { isTerminal, type LiveTraining } from './liveTraining';
import { TrainingCurves } from './TrainingCurves';
import { taskOf } from '../shared/tasks';
import { useTrainingStream, type StreamState } from './useTrainingStream';

const POLL_MS = 5000;

const fromDetail = (d: TrainingDetailData): LiveTraining => ({
  status: d.status,
  phase: d.phase,
  epoch: d.epoch,
  epochs: d.epochs,
  etaS: d.etaS,
  history: d.history,
  error: d.error,
});

function StreamNote({ stream, failure }: { stream: StreamState; failure: string | null }) {
  const { t } = useTranslation('training');
  if (stream === 'failed') {
    return (
      <Alert
        type="warning"
        showIcon
        data-testid="train-stream"
        data-state={stream}
        title={t('train.streamFailed', { seconds: POLL_MS / 1000 })}
        description={failure || undefined}
      />
    );
  }
  const color = stream === 'open' ? 'green' : stream === 'reconnecting' ? 'orange' : 'default';
  return (
    <Tag color={color} data-testid="train-stream" data-state={stream}>
      {t(`train.stream.${stream}`)}
    </Tag>
  );
}

/**
 * The running training (SPEC §4: queued, preparing data, training): phase, epoch x/y, ETA, the live curves,
 * and stop, which abandons the progress. Live through SSE; polled if the stream is refused.
 */
export function ActiveTraining({ modelId, training, onEnd }: { modelId: string; training: TrainingData; onEnd: (state: TrainingStateEvent) => void }) {
  const { t } = useTranslation(['training', 'models']);
  const { message } = App.useApp();
  const showError = useShowError();
  const { live, stream, failure } = useTrainingStream(modelId, training, onEnd);
  const polled = useTrainingDetail(modelId, training.id, { pollMs: POLL_MS, enabled: stream === 'failed' });
  const view = stream === 'failed' && polled.data ? fromDetail(polled.data) : live;
  const stop = useStopTraining(modelId);
  const patchListed = usePatchListedTraining(modelId);

  // The version table's row follows the stream; the end itself is reported through onEnd.
  const { status, phase, epoch, epochs, etaS } = view;
  useEffect(() => {
    if (!isTerminal(status)) patchListed(training.id, { status, phase, epoch, epochs, etaS });
  }, [patchListed, training.id, status, phase, epoch, epochs, etaS]);

  // Polling is the fallback's only news of the end: report it once, as the stream would have.
  const ended = useRef(false);
  useEffect(() => {
    if (stream !== 'failed' || !polled.data || ended.current || !isTerminal(polled.data.status)) return;
    ended.current = true;
    onEnd({ status: polled.data.status, error: polled.data.error });
  }, [stream, polled.data, onEnd]);

  const onStop = async () => {
    try {
      await stop.mutateAsync(training.id);
      void message.info(t('train.stopping'));
    } catch (error) {
      showError(error);
    }
  };

  const percent = view.epochs > 0 ? Math.min(100, Math.round((view.epoch / view.epochs) * 100)) : 0;
  const training_ = view.status === 'training';
  return (
    <Card
      size="small"
      data-testid="train-progress"
      data-training-id={training.id}
      title={t('train.running', { version: training.version })}
      extra={
        <Popconfirm
          title={t('train.stopTitle')}
          description={<div className="loupe-train-stop-text">{t('train.stopWarning')}</div>}
          okText={t('train.stop')}
          cancelText={t('cancel')}
          okButtonProps={{ danger: true, 'data-testid': 'train-stop-confirm' }}
          onConfirm={onStop}
        >
          <Button danger loading={stop.isPending} data-testid="train-stop">
            {t('train.stop')}
          </Button>
        </Popconfirm>
      }
    >
      <Space wrap size="middle" className="loupe-train-progress-line">
        <Tag color="processing" data-testid="train-status" data-status={view.status}>
          {t(`models:trainingStatus.${view.status}`)}
        </Tag>
        <Typography.Text data-testid="train-phase" data-phase={view.phase}>
          {t('train.phaseLabel')}: {t(`phases.${view.phase}`)}
        </Typography.Text>
        <Typography.Text data-testid="train-epoch" data-epoch={view.epoch} data-epochs={view.epochs}>
          {t('train.epochOf', { epoch: view.epoch, epochs: view.epochs > 0 ? view.epochs : DASH })}
        </Typography.Text>
        <Typography.Text data-testid="train-eta" data-eta-s={view.etaS ?? ''}>
          {t('train.eta', { time: training_ && view.etaS !== null ? duration(view.etaS) : DASH })}
        </Typography.Text>
        <StreamNote stream={stream} failure={failure?.message ?? null} />
        {/* The engine's CPU, memory and log lines, and the queue place, are on /monitor. */}
        <Link to="/monitor" data-testid="train-open-monitor">
          {t('train.openMonitor')}
        </Link>
      </Space>
      <Progress percent={percent} status="active" data-testid="train-progress-bar" />
      <TrainingCurves history={view.history} task={taskOf(training.task)} />
    </Card>
  );
}
