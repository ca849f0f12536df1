import { Button, Space, Tag, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import type { LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ClassButtons } from './ClassButtons';

interface Props {
  modelId: string;
  labels: readonly LabelData[];
  /** The open image's class, or null when it has none. */
  classLabelId: number | null;
  disabled: boolean;
  onAssign: (labelId: number | null) => void;
}

/** The image's class and one button per label (keys 1–9 for the first nine), plus an inline new label. */
export function ClassPanel({ modelId, labels, classLabelId, disabled, onAssign }: Props) {
  const { t } = useTranslation('mark');
  const current = labels.find((l) => l.id === classLabelId);
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="mark-classes">
      <Space data-testid="mark-current-class" data-label-id={current?.id ?? ''} wrap>
        <Typography.Text type="secondary">{t('classify.current')}</Typography.Text>
        {current ? <Tag color={current.color}>{current.name}</Tag> : <Typography.Text italic>{t('classify.none')}</Typography.Text>}
        <Button
          size="small"
          icon={<CloseOutlined />}
          disabled={disabled || classLabelId === null}
          onClick={() => onAssign(null)}
          data-testid="mark-class-clear"
        >
          {t('classify.clear')}
        </Button>
      </Space>
      <ClassButtons
        modelId={modelId}
        labels={labels}
        disabled={disabled}
        isActive={(id) => id === classLabelId}
        onClick={onAssign}
        titleKey="classify.assignKey"
      />
    </Space>
  );
}
