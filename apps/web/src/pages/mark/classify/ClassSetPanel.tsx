import { Button, Space, Tag, Typography } from 'antd';
import { CloseOutlined, StopOutlined, RightOutlined } from '@ant-design/icons';
import type { LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ClassButtons } from './ClassButtons';
import type { ClassSet } from './classSet';

interface Props {
  modelId: string;
  labels: readonly LabelData[];
  set: ClassSet;
  disabled: boolean;
  onToggle: (labelId: number) => void;
  onNone: () => void;
  onClear: () => void;
  onNext: () => void;
}

/** Multi-label: the image's classes as toggles (keys 1–9), "none of these" (N), clear (0) and next (Enter). */
export function ClassSetPanel({ modelId, labels, set, disabled, onToggle, onNone, onClear, onNext }: Props) {
  const { t } = useTranslation('mark');
  const chosen = labels.filter((l) => set.labelIds.includes(l.id));
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="mark-classes" data-multi="true">
      <Space data-testid="mark-current-class" data-label-ids={set.labelIds.join(',')} data-none={set.none} wrap>
        <Typography.Text type="secondary">{t('classify.currentSet')}</Typography.Text>
        {chosen.map((l) => (
          <Tag key={l.id} color={l.color}>
            {l.name}
          </Tag>
        ))}
        {chosen.length === 0 && <Typography.Text italic>{set.none ? t('classify.noneConfirmed') : t('classify.none')}</Typography.Text>}
      </Space>
      <Space wrap>
        <Button size="small" icon={<CloseOutlined />} disabled={disabled || (chosen.length === 0 && !set.none)} onClick={onClear} data-testid="mark-class-clear">
          {t('classify.clear')}
        </Button>
        <Button size="small" icon={<StopOutlined />} type={set.none ? 'primary' : 'default'} disabled={disabled} onClick={onNone} data-testid="mark-class-none" data-active={set.none}>
          {t('classify.noneOfThese')}
        </Button>
        <Button size="small" icon={<RightOutlined />} disabled={disabled} onClick={onNext} data-testid="mark-class-next">
          {t('classify.next')}
        </Button>
      </Space>
      <ClassButtons
        modelId={modelId}
        labels={labels}
        disabled={disabled}
        isActive={(id) => set.labelIds.includes(id)}
        onClick={onToggle}
        titleKey="classify.toggleKey"
        toggles
      />
    </Space>
  );
}
