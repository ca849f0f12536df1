import { Button, Empty, Space, Tag, Typography } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import { LabelingLimits, type LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { NewLabelForm } from '../shared/NewLabelForm';

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
      {labels.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('labels.empty')} />}
      <div className="loupe-mark-class-list">
        {labels.map((label, i) => {
          const key = i < LabelingLimits.labelShortcutCount ? String(i + 1) : null;
          const active = label.id === classLabelId;
          return (
            <Button
              key={label.id}
              block
              type={active ? 'primary' : 'default'}
              disabled={disabled}
              onClick={() => onAssign(label.id)}
              data-testid={`mark-class-${label.id}`}
              data-active={active}
              title={key ? t('classify.assignKey', { name: label.name, key }) : label.name}
              className="loupe-mark-class"
            >
              <span className="loupe-mark-swatch" style={{ background: label.color }} />
              <span className="loupe-mark-label-name">{label.name}</span>
              {key && <kbd className="loupe-mark-key">{key}</kbd>}
            </Button>
          );
        })}
      </div>
      <NewLabelForm modelId={modelId} count={labels.length} onCreated={() => undefined} />
    </Space>
  );
}
