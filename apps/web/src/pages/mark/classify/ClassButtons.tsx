import { Button, Empty } from 'antd';
import { LabelingLimits, type LabelData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { NewLabelForm } from '../shared/NewLabelForm';

interface Props {
  modelId: string;
  labels: readonly LabelData[];
  disabled: boolean;
  isActive: (labelId: number) => boolean;
  onClick: (labelId: number) => void;
  /** The buttons' tooltip: `classify.assignKey` (one class per image) or `classify.toggleKey` (several). */
  titleKey: 'classify.assignKey' | 'classify.toggleKey';
  /** Toggle buttons (several classes per image) say whether they are pressed. */
  toggles?: boolean;
}

/**
 * One button per label (keys 1–9 for the first nine) and an inline new label: the class list of /mark
 * classification, in both modes.
 */
export function ClassButtons({ modelId, labels, disabled, isActive, onClick, titleKey, toggles }: Props) {
  const { t } = useTranslation('mark');
  return (
    <>
      {labels.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('labels.empty')} />}
      <div className="loupe-mark-class-list">
        {labels.map((label, i) => {
          const key = i < LabelingLimits.labelShortcutCount ? String(i + 1) : null;
          const active = isActive(label.id);
          return (
            <Button
              key={label.id}
              block
              type={active ? 'primary' : 'default'}
              disabled={disabled}
              onClick={() => onClick(label.id)}
              data-testid={`mark-class-${label.id}`}
              data-active={active}
              aria-pressed={toggles ? active : undefined}
              title={key ? t(titleKey, { name: label.name, key }) : label.name}
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
    </>
  );
}
