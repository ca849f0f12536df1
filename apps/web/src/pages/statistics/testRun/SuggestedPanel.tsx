import { Card, Descriptions, Empty, Space, Tag, Typography } from 'antd';
import type { SuggestedConfidences } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

const two = (v: number) => v.toFixed(2);

/** The suggested confidences of the run (best F1 overall and per class; the NG recall target), when it has them. */
export function SuggestedPanel({ suggested }: { suggested: SuggestedConfidences | null }) {
  const { t } = useTranslation('statistics');
  if (!suggested) {
    return (
      <Card size="small" title={t('test.suggested.title')} data-testid="statistics-suggested" data-present="false">
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('test.suggested.none')} />
      </Card>
    );
  }
  const { f1, recall } = suggested;
  const target = Math.round(recall.target * 100);
  const perClass = Object.entries(f1.perClass);
  return (
    <Card size="small" title={t('test.suggested.title')} data-testid="statistics-suggested" data-present="true" data-conf={f1.overall}>
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'f1', label: t('test.table.f1'), children: t('test.suggested.bestF1', { f1: two(f1.f1), conf: two(f1.overall) }) },
          {
            key: 'recall',
            label: t('test.suggested.ng'),
            children:
              recall.conf === null
                ? t('test.suggested.recallNone', { target })
                : t('test.suggested.recall', { target, conf: two(recall.conf), classes: recall.classes.join(', ') }),
          },
          ...(perClass.length > 0
            ? [
                {
                  key: 'perClass',
                  label: t('test.suggested.perClass'),
                  children: (
                    <Space wrap size={4}>
                      {perClass.map(([name, conf]) => (
                        <Tag key={name}>
                          <Typography.Text>{`${name} ${two(conf)}`}</Typography.Text>
                        </Tag>
                      ))}
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Card>
  );
}
