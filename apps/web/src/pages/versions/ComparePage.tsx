import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Card, Col, Empty, Row, Select, Space, Table, Typography, type TableColumnsType } from 'antd';
import type { ClassDifference, ParamDifference, TrainingDetailData, VersionData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { EChart } from '@/pages/training/charts/EChart';
import { curveOption, seriesOf, type Series } from '@/pages/training/charts/options';
import { LoadError, Loading, NoProject } from '@/pages/training/shared/PageStates';
import { DASH, fixed } from '@/pages/training/shared/format';
import { HEADLINE, taskOf } from '@/pages/training/shared/tasks';
import { useCompare, useVersions } from './versionsApi';
import './versions.css';

/** Series of both versions in one chart: each key once per version, named "v2 · Loss". */
export function overlaid(a: TrainingDetailData, b: TrainingDetailData, keys: (d: TrainingDetailData) => readonly string[]): Series[] {
  return [a, b].flatMap((d) => seriesOf(d.history, keys(d)).map((s) => ({ key: `${d.version}|${s.key}`, data: s.data })));
}

const shown = (v: ParamDifference['a']) => (v === null ? DASH : String(v));

function Curves({ data }: { data: { a: TrainingDetailData; b: TrainingDetailData } }) {
  const { t } = useTranslation(['versions', 'training']);
  const label = useCallback((key: string) => {
    const [version, metric] = key.split('|');
    return `${version} · ${t(`training:metrics.${metric}`, { defaultValue: metric })}`;
  }, [t]);
  const epoch = t('training:train.epochAxis');
  const headline = (d: TrainingDetailData) => [HEADLINE[taskOf(d.task)]];
  const lossSeries = useMemo(() => overlaid(data.a, data.b, () => ['loss', 'val_loss']), [data]);
  const metricSeries = useMemo(() => overlaid(data.a, data.b, headline), [data]);
  const points = data.a.history.length + data.b.history.length;
  return (
    <Row gutter={16}>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('training:train.lossCurves')}</Typography.Title>
        <EChart option={curveOption(lossSeries, label, epoch)} points={points} testId="compare-curve-loss" emptyText={t('training:train.noEpochs')} series={lossSeries.map((s) => s.key)} />
      </Col>
      <Col xs={24} lg={12}>
        <Typography.Title level={5}>{t('training:train.metricCurves')}</Typography.Title>
        <EChart option={curveOption(metricSeries, label, epoch, 1)} points={points} testId="compare-curve-metrics" emptyText={t('training:train.noEpochs')} series={metricSeries.map((s) => s.key)} />
      </Col>
    </Row>
  );
}

function Comparison({ modelId, a, b }: { modelId: string; a: number; b: number }) {
  const { t } = useTranslation(['versions', 'training']);
  const compare = useCompare(modelId, a, b);
  if (compare.isPending) return <Loading testId="compare-loading" />;
  if (compare.isError) return <LoadError error={compare.error} onRetry={() => void compare.refetch()} testId="compare-error" />;
  const { a: va, b: vb } = compare.data;
  const paramColumns: TableColumnsType<ParamDifference> = [
    { title: t('compare.parameter'), dataIndex: 'key' },
    { title: va.version, key: 'a', render: (_, r) => <span data-testid={`param-a-${r.key}`}>{shown(r.a)}</span> },
    { title: vb.version, key: 'b', render: (_, r) => <span data-testid={`param-b-${r.key}`}>{shown(r.b)}</span> },
  ];
  const classColumns: TableColumnsType<ClassDifference> = [
    { title: t('compare.class'), dataIndex: 'name' },
    { title: t('compare.metric'), dataIndex: 'metric', render: (m: string) => t(`training:metrics.${m}`, { defaultValue: m }) },
    { title: va.version, key: 'a', render: (_, r) => fixed(r.a, 3) },
    { title: vb.version, key: 'b', render: (_, r) => fixed(r.b, 3) },
    {
      title: t('compare.change'),
      key: 'delta',
      render: (_, r) => {
        if (r.a === null || r.b === null) return DASH;
        const d = r.b - r.a;
        const type = d > 0.0005 ? 'success' : d < -0.0005 ? 'danger' : undefined;
        return (
          <Typography.Text type={type} data-testid={`class-delta-${r.name}-${r.metric}`} data-value={d}>
            {`${d > 0 ? '+' : ''}${fixed(d, 3)}`}
          </Typography.Text>
        );
      },
    },
  ];
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="compare-result" data-a={va.id} data-b={vb.id}>
      <Card size="small" title={t('compare.curvesTitle', { a: va.version, b: vb.version })}>
        <Curves data={compare.data} />
      </Card>
      <Card size="small" title={t('compare.paramsTitle')} data-testid="compare-params" data-count={compare.data.params.length}>
        <Table<ParamDifference>
          rowKey="key"
          size="small"
          pagination={false}
          columns={paramColumns}
          dataSource={compare.data.params}
          onRow={(r) => ({ 'data-testid': `param-row-${r.key}` }) as React.HTMLAttributes<HTMLElement>}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('compare.sameParams')} /> }}
        />
      </Card>
      <Card size="small" title={t('compare.classesTitle')} data-testid="compare-classes" data-count={compare.data.perClass.length}>
        <Table<ClassDifference>
          rowKey={(r) => `${r.name}|${r.metric}`}
          size="small"
          pagination={false}
          columns={classColumns}
          dataSource={compare.data.perClass}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('compare.noClasses')} /> }}
        />
      </Card>
    </Space>
  );
}

function Compare({ modelId }: { modelId: string }) {
  const { t } = useTranslation('versions');
  const list = useVersions(modelId);
  const [params, setParams] = useSearchParams();
  const items: VersionData[] = useMemo(() => list.data?.items ?? [], [list.data]);
  if (list.isPending) return <Loading testId="compare-versions-loading" />;
  if (list.isError) return <LoadError error={list.error} onRetry={() => void list.refetch()} testId="compare-versions-error" />;
  const finished = items.filter((v) => v.status === 'succeeded');
  const ids = new Set(items.map((v) => v.id));
  const asked = (k: string) => {
    const n = Number(params.get(k));
    return ids.has(n) ? n : undefined;
  };
  // Without a choice in the address: the two newest succeeded versions, older on the left.
  const a = asked('a') ?? finished[1]?.id;
  const b = asked('b') ?? finished[0]?.id;
  const choose = (key: 'a' | 'b', id: number) => {
    const next = new URLSearchParams(params);
    next.set(key, String(id));
    if (key === 'a' && b !== undefined && !next.has('b')) next.set('b', String(b));
    if (key === 'b' && a !== undefined && !next.has('a')) next.set('a', String(a));
    setParams(next, { replace: true });
  };
  const options = items.map((v) => ({ value: v.id, label: `${v.version}${v.note ? ` · ${v.note}` : ''}` }));
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }} data-testid="compare-page">
      <Typography.Paragraph type="secondary">{t('compare.intro')}</Typography.Paragraph>
      <Space wrap>
        <span>{t('compare.left')}</span>
        <Select<number> className="loupe-compare-pick" value={a} onChange={(v) => choose('a', v)} options={options} placeholder={t('compare.pick')} data-testid="compare-a" />
        <span>{t('compare.right')}</span>
        <Select<number> className="loupe-compare-pick" value={b} onChange={(v) => choose('b', v)} options={options} placeholder={t('compare.pick')} data-testid="compare-b" />
      </Space>
      {items.length < 2 ? (
        <Empty description={t('compare.needTwo')} data-testid="compare-need-two" />
      ) : a === undefined || b === undefined || a === b ? (
        <Empty description={t('compare.pickTwo')} data-testid="compare-pick-two" />
      ) : (
        <Comparison modelId={modelId} a={a} b={b} />
      )}
    </Space>
  );
}

/** /train2 (SPEC §2): two trainings of the open model compared: curves overlaid, parameter and per-class differences. */
export default function ComparePage() {
  const project = useProject((s) => s.project);
  if (!project) return <NoProject />;
  return <Compare key={project.id} modelId={project.id} />;
}
