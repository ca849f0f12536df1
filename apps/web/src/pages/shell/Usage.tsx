import { useMemo, useState, type HTMLAttributes } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Empty, Row, Segmented, Space, Statistic, Table, Tag, Typography } from 'antd';
import { UsageKinds, UsagePaths, type UsageData, type UsageEntry, type UsageMonth } from '@loupe/contracts';
import { api } from '@/api/client';
import { useTranslation } from '@/i18n';

export const USAGE_PERIODS = ['month', 'quarter', 'year', 'all'] as const;
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** The period's start (epoch ms, local time): this month's first day, 3 or 12 months back from it; none for all. */
export function periodStart(period: UsagePeriod, now = new Date()): number | undefined {
  if (period === 'all') return undefined;
  const back = { month: 0, quarter: 2, year: 11 }[period];
  return new Date(now.getFullYear(), now.getMonth() - back, 1).getTime();
}

/** Hours with one decimal, or minutes below an hour, or seconds below a minute. */
export function durationText(seconds: number, t: (k: string, o?: Record<string, unknown>) => string): string {
  if (seconds < 60) return t('usage.seconds', { n: Math.round(seconds) });
  if (seconds < 3600) return t('usage.minutes', { n: Math.round(seconds / 60) });
  return t('usage.hoursShort', { n: (seconds / 3600).toFixed(1) });
}

const RESULT_COLORS = { succeeded: 'green', failed: 'red', cancelled: 'default' } as const;

/** /usage: the account's trainings, tests and exports and their hours (from the server's usage ledger). */
export function Usage() {
  const { t, i18n } = useTranslation(['layout', 'routes']);
  const [period, setPeriod] = useState<UsagePeriod>('month');
  const from = useMemo(() => periodStart(period), [period]);
  const usage = useQuery({
    queryKey: ['usage', period],
    queryFn: () => api.get<UsageData>(UsagePaths.usage, { params: from === undefined ? {} : { from } }),
  });
  const data = usage.data;
  const date = (iso: string) => new Date(iso).toLocaleString(i18n.language);
  const kindText = (kind: string) => t(`usage.kinds.${kind}`);
  const empty = data !== undefined && data.entries.length === 0;

  return (
    <div className="loupe-page" data-testid="usage-page">
      <Space align="baseline" wrap style={{ justifyContent: 'space-between', width: '100%' }}>
        <Typography.Title level={3} data-testid="page-title">
          {t('routes:usage')}
        </Typography.Title>
        <Segmented<UsagePeriod>
          value={period}
          onChange={setPeriod}
          options={USAGE_PERIODS.map((p) => ({ value: p, label: <span data-testid={`usage-period-${p}`}>{t(`usage.periods.${p}`)}</span> }))}
          data-testid="usage-period"
        />
      </Space>
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
        {UsageKinds.map((kind) => {
          const total = data?.totals.find((x) => x.kind === kind);
          return (
            <Col xs={24} md={8} key={kind}>
              <Card size="small" loading={usage.isLoading} data-testid={`usage-total-${kind}`} data-count={total?.count ?? 0} data-hours={total?.hours ?? 0}>
                <Statistic title={t(`usage.totals.${kind}`)} value={total?.count ?? 0} />
                <Typography.Text type="secondary" data-testid={`usage-time-${kind}`}>
                  {t('usage.time', { time: durationText((total?.hours ?? 0) * 3600, t) })}
                </Typography.Text>
              </Card>
            </Col>
          );
        })}
      </Row>
      {empty ? (
        <Empty description={t('usage.empty')} data-testid="usage-empty" />
      ) : (
        <Space orientation="vertical" size={16} style={{ width: '100%' }}>
          <Card size="small" title={t('usage.latest')}>
            <Table<UsageEntry>
              data-testid="usage-entries"
              size="small"
              rowKey="id"
              loading={usage.isLoading}
              dataSource={data?.entries ?? []}
              pagination={false}
              scroll={{ x: 'max-content' }}
              onRow={(r) => ({ 'data-testid': 'usage-entry', 'data-kind': r.kind }) as HTMLAttributes<HTMLElement>}
              columns={[
                { key: 'finishedAt', title: t('usage.columns.finishedAt'), render: (_, r) => date(r.finishedAt) },
                { key: 'kind', title: t('usage.columns.kind'), render: (_, r) => kindText(r.kind) },
                {
                  key: 'model',
                  title: t('usage.columns.model'),
                  render: (_, r) => (
                    <Space size={4}>
                      <span>{r.modelName}</span>
                      {r.modelId === null && <Tag>{t('usage.deleted')}</Tag>}
                    </Space>
                  ),
                },
                { key: 'result', title: t('usage.columns.result'), render: (_, r) => <Tag color={RESULT_COLORS[r.result]}>{t(`usage.results.${r.result}`)}</Tag> },
                { key: 'duration', title: t('usage.columns.duration'), align: 'right', render: (_, r) => durationText(r.seconds, t) },
              ]}
            />
          </Card>
          <Card size="small" title={t('usage.byMonth')}>
            <Table<UsageMonth>
              data-testid="usage-months"
              size="small"
              rowKey={(r) => `${r.month}-${r.kind}`}
              dataSource={data?.months ?? []}
              pagination={false}
              columns={[
                { key: 'month', title: t('usage.columns.month'), dataIndex: 'month' },
                { key: 'kind', title: t('usage.columns.kind'), render: (_, r) => kindText(r.kind) },
                { key: 'count', title: t('usage.columns.count'), dataIndex: 'count', align: 'right' },
                { key: 'hours', title: t('usage.columns.hours'), align: 'right', render: (_, r) => durationText(r.hours * 3600, t) },
              ]}
            />
          </Card>
        </Space>
      )}
    </div>
  );
}
