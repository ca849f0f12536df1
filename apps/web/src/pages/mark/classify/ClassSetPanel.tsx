import { Button, Empty, Space, Tag, Typography } from 'antd';
import { CloseOutlined, StopOutlined, RightOutlined } from '@ant-design/icons';
import { LabelingLimits, type LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { NewLabelForm } from '../shared/NewLabelForm';
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
      {labels.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('labels.empty')} />}
      <div className="loupe-mark-class-list">
        {labels.map((label, i) => {
          const key = i < LabelingLimits.labelShortcutCount ? String(i + 1) : null;
          const active = set.labelIds.includes(label.id);
          return (
            <Button
              key={label.id}
              block
              type={active ? 'primary' : 'default'}
              disabled={disabled}
              onClick={() => onToggle(label.id)}
              data-testid={`mark-class-${label.id}`}
              data-active={active}
              aria-pressed={active}
              title={key ? t('classify.toggleKey', { name: label.name, key }) : label.name}
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
