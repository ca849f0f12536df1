import { Space, Switch, Tooltip, Typography } from 'antd';
import { useShowError } from '@/api/useShowError';
import { useTranslation } from '@/i18n';
import { useSetMultiLabel } from './classModeApi';

interface Props {
  modelId: string;
  multiLabel: boolean;
  disabled: boolean;
  /** After a switch: the classes of every image moved, the open one must be read again. */
  onSwitched: () => void;
}

/**
 * "Several classes per image". Switching to one class per image is refused by the server while an image holds
 * more than one (its message names them); the switch then stays where it was.
 */
export function ClassModeSwitch({ modelId, multiLabel, disabled, onSwitched }: Props) {
  const { t } = useTranslation('mark');
  const showError = useShowError();
  const set = useSetMultiLabel(modelId);
  return (
    <Tooltip title={t('classify.multiHint')}>
      <Space>
        <Switch
          size="small"
          checked={multiLabel}
          loading={set.isPending}
          disabled={disabled}
          onChange={(on) => set.mutate(on, { onSuccess: onSwitched, onError: showError })}
          data-testid="mark-multi-label"
        />
        <Typography.Text>{t('classify.multi')}</Typography.Text>
      </Space>
    </Tooltip>
  );
}
