import { memo } from 'react';
import { Button, Switch, Space, Tooltip } from 'antd';
import { ImportOutlined } from '@ant-design/icons';
import type { TestResultsData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

interface Props {
  results: TestResultsData | undefined;
  shown: boolean;
  onShow: (shown: boolean) => void;
  converting: boolean;
  onConvert: () => void;
}

/**
 * The latest test's boxes on this image, drawn dashed, and their conversion to annotations. Convert stays
 * enabled outside the test split: the server's refusal ("not test data, cannot convert") says why.
 */
export const TestResultsControls = memo(function TestResultsControls({ results, shown, onShow, converting, onConvert }: Props) {
  const { t } = useTranslation('mark');
  const count = results?.results.length ?? 0;
  if (count === 0) return null;
  return (
    <Space size={8} data-testid="mark-test-results" data-count={count}>
      <Switch
        checked={shown}
        onChange={onShow}
        checkedChildren={t('test.count', { count })}
        unCheckedChildren={t('test.count', { count })}
        aria-label={t(shown ? 'test.hide' : 'test.show')}
        data-testid="mark-test-toggle"
      />
      <Tooltip title={t('test.convertHint')}>
        <Button icon={<ImportOutlined />} loading={converting} onClick={onConvert} data-testid="mark-convert">
          {t('test.convert')}
        </Button>
      </Tooltip>
    </Space>
  );
});
