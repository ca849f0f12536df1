import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Descriptions, Popconfirm, Space, Steps, Tag } from 'antd';
import type { AgentPhase, AgentRunData } from '@loupe/contracts';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { DASH, dateTime, duration } from '@/pages/training/shared/format';
import { LoadError, Loading } from '@/pages/training/shared/PageStates';
import type { StreamState } from '@/pages/training/train/useTrainingStream';
import { isTerminalPhase, useAgentRunChanged, useStopAgent } from './agentApi';
import { AgentLog } from './AgentLog';
import { etaNow, STEP_PHASES, stepOf, type LiveAgent } from './liveAgent';
import { RunResult } from './RunResult';
import { Trials } from './Trials';
import { useAgentRun } from './useAgentRun';

export const PHASE_COLORS: Partial<Record<AgentPhase, string>> = { complete: 'success', failed: 'error', cancelled: 'warning' };

/** Seconds left, counted down locally between the server's updates. */
function Eta({ run }: { run: AgentRunData }) {
  const [receivedAt, setReceivedAt] = useState(() => Date.now());
  const [now, setNow] = useState(receivedAt);
  useEffect(() => {
    const at = Date.now();
    setReceivedAt(at);
    setNow(at);
  }, [run.etaS]);
  const ticking = run.etaS !== null && !isTerminalPhase(run.phase);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  const left = ticking ? etaNow(run.etaS, receivedAt, now) : null;
  return (
    <span data-testid="agent-eta" data-seconds={left ?? ''}>
      {left === null ? DASH : duration(left)}
    </span>
  );
}

/** SPEC §4 phases as steps, each with its planned minutes; a failed or cancelled run shows where it ended. */
function PhaseSteps({ live }: { live: LiveAgent }) {
  const { t } = useTranslation('agent');
  const { run } = live;
  const step = stepOf(run, live.log);
  const current = Math.max(0, STEP_PHASES.indexOf(step));
  const ended = run.phase === 'failed' || run.phase === 'cancelled';
  const items = STEP_PHASES.map((phase, i) => {
    const planned = run.plan[phase];
    const here = i === current;
    return {
      key: phase,
      title: (
        <span data-testid={`agent-phase-${phase}`} data-state={here ? 'current' : i < current ? 'done' : 'waiting'}>
          {here && ended ? `${t(`phase.${phase}`)} · ${t(`phase.${run.phase}`)}` : t(`phase.${phase}`)}
          {here && <span data-testid="agent-phase-current" data-phase={run.phase} data-step={phase} />}
        </span>
      ),
      content: typeof planned === 'number' ? t('run.planned', { minutes: Math.round(planned / 60) }) : undefined,
    };
  });
  const status = ended ? 'error' : run.phase === 'complete' ? 'finish' : 'process';
  return <Steps size="small" current={current} status={status} items={items} data-testid="agent-phases" />;
}

function StopButton({ modelId, run }: { modelId: string; run: AgentRunData }) {
  const { t } = useTranslation('agent');
  const { message } = App.useApp();
  const showError = useShowError();
  const stop = useStopAgent(modelId);
  const onStop = async () => {
    try {
      await stop.mutateAsync(run.id);
      void message.info(t('run.stopped'));
    } catch (error) {
      showError(error);
    }
  };
  return (
    <Popconfirm title={t('run.stopConfirm')} okText={t('run.stop')} cancelText={t('run.keep')} onConfirm={() => void onStop()} okButtonProps={{ danger: true, 'data-testid': 'agent-stop-confirm' }}>
      <Button danger loading={stop.isPending} data-testid="agent-stop">
        {t('run.stop')}
      </Button>
    </Popconfirm>
  );
}

function StreamNotice({ stream }: { stream: StreamState }) {
  const { t } = useTranslation('agent');
  if (stream === 'reconnecting') return <Alert type="warning" showIcon title={t('run.reconnecting')} data-testid="agent-reconnecting" />;
  if (stream === 'failed') return <Alert type="info" showIcon title={t('run.polling')} data-testid="agent-polling" />;
  return null;
}

function RunHeader({ modelId, live }: { modelId: string; live: LiveAgent }) {
  const { t } = useTranslation('agent');
  const { run } = live;
  const items = [
    { key: 'phase', label: t('run.phase'), children: <Tag color={PHASE_COLORS[run.phase] ?? 'processing'} data-testid="agent-run-phase">{t(`phase.${run.phase}`)}</Tag> },
    { key: 'budget', label: t('run.budget'), children: <span data-testid="agent-run-budget">{duration(run.budgetS)}</span> },
    { key: 'eta', label: t('run.eta'), children: <Eta run={run} /> },
    { key: 'started', label: t('run.started'), children: dateTime(run.startedAt) },
    { key: 'ended', label: t('run.ended'), children: dateTime(run.endedAt) },
  ];
  return (
    <Card
      size="small"
      title={t('run.title', { id: run.id })}
      extra={isTerminalPhase(run.phase) ? undefined : <StopButton modelId={modelId} run={run} />}
      data-testid="agent-run"
      data-run={run.id}
      data-phase={run.phase}
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <PhaseSteps live={live} />
        <Descriptions size="small" column={{ xs: 1, md: 3, xl: 5 }} items={items} />
        {run.error && <Alert type="error" showIcon title={run.error} data-testid="agent-run-error" />}
      </Space>
    </Card>
  );
}

/** One run: where it stands, its trials, its decisions and what it produced; live while it works. */
export function RunView({ modelId, run }: { modelId: string; run: AgentRunData }) {
  const changed = useAgentRunChanged(modelId);
  const { shown, stream, detail } = useAgentRun(modelId, run, changed);
  if (!shown) {
    if (detail.isError) return <LoadError error={detail.error} onRetry={() => void detail.refetch()} testId="agent-run-load-error" />;
    return <Loading testId="agent-run-loading" />;
  }
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <StreamNotice stream={stream} />
      <RunHeader modelId={modelId} live={shown} />
      <RunResult modelId={modelId} run={shown.run} />
      <Trials trials={shown.trials} />
      <AgentLog log={shown.log} />
    </Space>
  );
}
