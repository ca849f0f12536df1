import { Card, Empty, Space, Tag, Typography } from 'antd';
import type { Recommendation } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

/** "imgsz = 640" for each training parameter a recommendation sets. */
export const setsOf = (r: Recommendation) => Object.entries(r.set).map(([k, v]) => `${k} = ${String(v)}`);

/** What the analysis advises, and the training parameters each piece of advice sets (the agent's base configuration). */
export function Recommendations({ items }: { items: readonly Recommendation[] }) {
  const { t } = useTranslation('statistics');
  return (
    <Card size="small" title={t('recommendations.title')} data-testid="statistics-recommendations">
      {items.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('recommendations.none')} />
      ) : (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          {items.map((r) => (
            <Space key={r.code} orientation="vertical" size={2} data-testid={`recommendation-${r.code}`}>
              <Typography.Text>{t(`recommendation.${r.code}`, r.params)}</Typography.Text>
              {setsOf(r).length > 0 && (
                <Space wrap size={4}>
                  <Typography.Text type="secondary">{t('recommendations.sets')}</Typography.Text>
                  {setsOf(r).map((s) => (
                    <Tag key={s}>{s}</Tag>
                  ))}
                </Space>
              )}
            </Space>
          ))}
        </Space>
      )}
    </Card>
  );
}
