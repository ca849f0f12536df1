import { useCallback, useEffect, useMemo, useRef } from 'react';
import { Link } from 'react-router-dom';
import { Card, Col, Descriptions, Empty, Progress, Row, Space, Table, Tag, Typography } from 'antd';
import type { MonitorActiveJob, MonitorData, MonitorHistoryItem } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { EChart } from '@/pages/training/charts/EChart';
import { curveOption, seriesOf } from '@/pages/training/charts/options';
import { DASH, dateTime, duration } from '@/pages/training/shared/format';
import { LoadError, Loading, NoProject } from '@/pages/training/shared/PageStates';
import { lossKeys, METRIC_CURVES, taskOf } from '@/pages/training/shared/tasks';
import { asHistory, bytes, pageOf, projectStatusOf, useMonitor } from './monitorApi';
import './monitor.css';

const STATE_COLOR: Record<string, string> = { queued: 'default', running: 'processing', succeeded: 'success', failed: 'error', cancelled: 'warning' };

/** Loss and metric curves of the running training, with the chart the training page draws. */
function Curves({ job, type }: { job: MonitorActiveJob; type: string }) {
  const { t } = useTranslation(['monitor', 'training']);
  const history = useMemo(() => asHistory(job.curves, job.epochs), [job.curves, job.epochs]);
  const label = useCallback((key: string) => t(`training:metrics.${key}`, { defaultValue: key }), [t]);
  const axis = t('training:train.epochAxis');
  const lossSeries = useMemo(() => seriesOf(history, ['loss', 'val_loss', ...lossKeys(history)]), [history]);
  const metricSeries = useMemo(() => seriesOf(history, METRIC_CURVES[taskOf(null, type)]), [history, type]);
  const loss = useMemo(() => curveOption(lossSeries, label, axis), [lossSeries, label, axis]);
  const metrics = useMemo(() => curveOption(metricSeries, label, axis, 1), [metricSeries, label, axis]);
  return (
    <Row gutter={16}>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('curves.loss')}</Typography.Title>
        <EChart option={loss} points={history.length} height={220} testId="monitor-curve-loss" emptyText={t('curves.none')} series={lossSeries.map((s) => s.key)} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('curves.metrics')}</Typography.Title>
        <EChart option={metrics} points={history.length} height={220} testId="monitor-curve-metrics" emptyText={t('curves.none')} series={metricSeries.map((s) => s.key)} />
      </Col>
    </Row>
  );
}

/** The engine's last lines, kept scrolled to the newest unless the user scrolled up to read. */
function EngineLog({ lines }: { lines: readonly string[] }) {
  const { t } = useTranslation('monitor');
  const ref = useRef<HTMLPreElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <pre
      ref={ref}
      className="loupe-monitor-log"
      data-testid="monitor-log"
      data-lines={lines.length}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 8;
      }}
    >
      {lines.length > 0 ? lines.join('\n') : t('log.empty')}
    </pre>
  );
}

function ActiveJob({ job, type, gpuPresent }: { job: MonitorActiveJob; type: string; gpuPresent: boolean }) {
  const { t } = useTranslation('monitor');
  const running = job.state === 'running';
  const cpu = job.process?.cpuPercent;
  const gpu = job.gpu;
  const items = [
    { key: 'phase', label: t('field.phase'), children: <span data-testid="monitor-phase">{t(`phase.${job.phase}`, { defaultValue: job.phase })}</span> },
    ...(job.kind === 'training'
      ? [{ key: 'epoch', label: t('field.epoch'), children: <span data-testid="monitor-epoch">{job.epochs > 0 ? `${job.epoch} / ${job.epochs}` : DASH}</span> }]
      : []),
    ...(job.kind === 'test' ? [{ key: 'images', label: t('field.images'), children: <span data-testid="monitor-done">{`${job.done} / ${job.total}`}</span> }] : []),
    { key: 'eta', label: t('field.eta'), children: <span data-testid="monitor-eta">{running && job.etaS !== null ? duration(job.etaS) : DASH}</span> },
    ...(job.state === 'queued'
      ? [{ key: 'queue', label: t('field.queue'), children: <span data-testid="monitor-queue-position">{t('queuePosition', { position: job.queuePosition ?? DASH })}</span> }]
      : []),
    { key: 'cpu', label: t('field.cpu'), children: <span data-testid="monitor-cpu">{typeof cpu === 'number' ? `${cpu.toFixed(1)} %` : DASH}</span> },
    { key: 'memory', label: t('field.memory'), children: <span data-testid="monitor-memory">{bytes(job.process?.rssBytes)}</span> },
    {
      key: 'gpu',
      label: t('field.gpu'),
      children: (
        <span data-testid="monitor-gpu">
          {gpu
            ? [gpu.name, gpu.utilPercent !== null ? `${gpu.utilPercent} %` : null, gpu.memoryUsedBytes !== null ? `${bytes(gpu.memoryUsedBytes)} / ${bytes(gpu.memoryTotalBytes)}` : null]
                .filter(Boolean)
                .join(' · ')
            : running && !gpuPresent
              ? t('noGpu')
              : DASH}
        </span>
      ),
    },
    { key: 'started', label: t('field.started'), children: dateTime(job.startedAt ?? job.queuedAt) },
  ];
  const percent = job.kind === 'training' && job.epochs > 0 ? (job.epoch / job.epochs) * 100 : job.total > 0 ? (job.done / job.total) * 100 : 0;
  return (
    <Card
      size="small"
      data-testid="monitor-active"
      data-job-id={job.jobId}
      data-state={job.state}
      data-kind={job.kind}
      title={
        <Space>
          <span data-testid="monitor-active-title">{`${t(`kind.${job.kind}`)} ${job.version ?? ''}`.trim()}</span>
          <Tag color={STATE_COLOR[job.state]} data-testid="monitor-active-state">
            {t(`state.${job.state}`)}
          </Tag>
        </Space>
      }
      extra={<Link to={pageOf(job.kind, type)}>{t('open')}</Link>}
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        {running && <Progress percent={Math.round(percent)} size="small" data-testid="monitor-progress" />}
        <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 4 }} items={items} />
        {job.kind === 'training' && running && <Curves job={job} type={type} />}
        {running && (
          <div>
            <Typography.Title level={5}>{t('log.title')}</Typography.Title>
            <EngineLog lines={job.log} />
          </div>
        )}
      </Space>
    </Card>
  );
}

function History({ items, type }: { items: MonitorHistoryItem[]; type: string }) {
  const { t } = useTranslation('monitor');
  return (
    <Table<MonitorHistoryItem>
      size="small"
      rowKey="jobId"
      dataSource={items}
      pagination={items.length > 10 ? { pageSize: 10 } : false}
      scroll={{ x: 'max-content' }}
      data-testid="monitor-history"
      locale={{ emptyText: <Empty description={t('history.empty')} /> }}
      onRow={(row) => ({ 'data-testid': 'monitor-history-row', 'data-kind': row.kind, 'data-state': row.state, 'data-version': row.version ?? '' }) as React.HTMLAttributes<HTMLElement>}
      columns={[
        { key: 'kind', title: t('history.kind'), render: (_, r) => t(`kind.${r.kind}`) },
        { key: 'version', title: t('history.version'), render: (_, r) => r.version ?? DASH },
        {
          key: 'state',
          title: t('history.state'),
          render: (_, r) => (
            <Tag color={STATE_COLOR[r.state]} data-testid="monitor-history-state">
              {t(`state.${r.state}`)}
            </Tag>
          ),
        },
        { key: 'queued', title: t('history.queued'), render: (_, r) => dateTime(r.queuedAt) },
        { key: 'started', title: t('history.started'), render: (_, r) => dateTime(r.startedAt) },
        { key: 'ended', title: t('history.ended'), render: (_, r) => dateTime(r.endedAt) },
        { key: 'duration', title: t('history.duration'), render: (_, r) => <span data-testid="monitor-history-duration">{duration(r.durationS)}</span> },
        { key: 'error', title: t('history.error'), render: (_, r) => (r.error ? <Typography.Text type="danger">{r.error}</Typography.Text> : DASH) },
        {
          key: 'open',
          title: '',
          render: (_, r) => (
            <Link to={pageOf(r.kind, type)} data-testid="monitor-history-open">
              {t('open')}
            </Link>
          ),
        },
      ]}
    />
  );
}

function MonitorView({ data, type }: { data: MonitorData; type: string }) {
  const { t } = useTranslation('monitor');
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Card size="small" title={t('now.title')}>
        {data.active.length === 0 ? (
          <Empty description={t('now.empty')} data-testid="monitor-idle" />
        ) : (
          <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
            {data.active.map((job) => (
              <ActiveJob key={job.jobId} job={job} type={type} gpuPresent={data.gpuPresent} />
            ))}
          </Space>
        )}
      </Card>
      <Card size="small" title={t('history.title')}>
        <History items={data.history} type={type} />
      </Card>
    </Space>
  );
}

function Workspace({ modelId, type }: { modelId: string; type: string }) {
  const monitor = useMonitor(modelId);
  const status = useProject((s) => s.project?.projectStatus);
  const hasTraining = useProject((s) => s.project?.hasTraining);
  const updateProject = useProject((s) => s.updateProject);
  // The project's lock follows what runs: a training or test that ended here unlocks the other pages at once,
  // and a first succeeded training opens the Model and Deploy menus as the training page would.
  useEffect(() => {
    if (!monitor.data) return;
    const next = projectStatusOf(monitor.data.active);
    const trained = monitor.data.history.some((h) => h.kind === 'training' && h.state === 'succeeded');
    if (next !== status || (trained && !hasTraining)) updateProject({ projectStatus: next, ...(trained ? { hasTraining: true } : {}) });
  }, [monitor.data, status, hasTraining, updateProject]);
  if (monitor.isPending) return <Loading testId="monitor-loading" />;
  if (monitor.isError && !monitor.data) return <LoadError error={monitor.error} onRetry={() => void monitor.refetch()} testId="monitor-error" />;
  return <MonitorView data={monitor.data!} type={type} />;
}

/** /monitor (issue 31 item 3): what the open model's engine is doing now, and the model's past jobs. */
export default function MonitorPage() {
  const { t } = useTranslation(['routes', 'monitor']);
  const project = useProject((s) => s.project);
  return (
    <div className="loupe-page" data-testid="monitor-page">
      <Typography.Title level={3} data-testid="page-title">
        {t('monitor')}
      </Typography.Title>
      {project ? <Workspace key={project.id} modelId={project.id} type={project.type} /> : <NoProject />}
    </div>
  );
}
