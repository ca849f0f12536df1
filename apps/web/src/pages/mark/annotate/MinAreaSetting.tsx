import { memo, useState } from 'react';
import { InputNumber, Space, Tooltip, Typography } from 'antd';
import { LabelingLimits } from '@loupe/contracts';
import { useTranslation } from '@/i18n';

/**
 * The model's minimum annotation area (SPEC §5), image px². Saved when the field is left or Enter is pressed,
 * not per keystroke: typing 120 must not pass through a minimum of 1 and 12.
 */
export const MinAreaSetting = memo(function MinAreaSetting({ value, saving, onSave }: { value: number; saving: boolean; onSave: (minArea: number) => void }) {
  const { t } = useTranslation('mark');
  const [draft, setDraft] = useState<number | null>(null);
  const commit = () => {
    if (draft !== null && draft !== value) onSave(draft);
    setDraft(null);
  };
  return (
    <Tooltip title={t('toolbar.minAreaHint')}>
      <Space size={4}>
        <Typography.Text type="secondary">{t('toolbar.minArea')}</Typography.Text>
        <InputNumber
          size="small"
          min={0}
          max={LabelingLimits.minAreaMax}
          value={draft ?? value}
          onChange={(v) => setDraft(typeof v === 'number' ? v : null)}
          onBlur={commit}
          onPressEnter={commit}
          disabled={saving}
          suffix={t('toolbar.minAreaUnit')}
          style={{ width: 120 }}
          aria-label={t('toolbar.minArea')}
          data-testid="mark-min-area"
        />
      </Space>
    </Tooltip>
  );
});
