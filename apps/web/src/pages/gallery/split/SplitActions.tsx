import { Button, Space, Typography } from 'antd';
import { Splits, type Split } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useSetSplit } from '../galleryApi';

interface Props {
  modelId: string;
  selected: number[];
  onDone: () => void;
}

/** Put the selected images in train, valid, test or back to none. */
export function SplitActions({ modelId, selected, onDone }: Props) {
  const { t } = useTranslation('gallery');
  const setSplit = useSetSplit(modelId);
  const apply = (split: Split) =>
    setSplit
      .mutateAsync({ ids: selected, split })
      .then(onDone)
      .catch(() => undefined);
  return (
    <Space wrap size="small">
      <Typography.Text type="secondary">{t('split.setTo')}</Typography.Text>
      {Splits.map((split) => (
        <Button
          key={split}
          size="small"
          disabled={selected.length === 0}
          loading={setSplit.isPending && setSplit.variables?.split === split}
          onClick={() => void apply(split)}
          data-testid={`split-set-${split}`}
        >
          {t(`splits.${split}`)}
        </Button>
      ))}
    </Space>
  );
}
