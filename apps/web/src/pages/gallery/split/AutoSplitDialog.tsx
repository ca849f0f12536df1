import { useState } from 'react';
import { Alert, Checkbox, Form, InputNumber, Modal, Space } from 'antd';
import { isApiError } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useAutoSplit } from '../galleryApi';
import { DEFAULT_PERCENTS, ratioProblem, toRatios, type SplitPercents } from './ratios';

interface Props {
  modelId: string;
  open: boolean;
  onClose: () => void;
}

const SHARES = ['train', 'valid', 'test'] as const;

/** Auto split (SPEC §5): ratios, an explicit confirmation tick, and the server's reason when it cannot. */
export function AutoSplitDialog({ modelId, open, onClose }: Props) {
  const { t } = useTranslation('gallery');
  const { message } = useNotify();
  const autoSplit = useAutoSplit(modelId);
  const [percents, setPercents] = useState<SplitPercents>(DEFAULT_PERCENTS);
  const [includeUnlabeled, setIncludeUnlabeled] = useState(false);
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = ratioProblem(percents);

  const submit = async () => {
    setError(null);
    try {
      const result = await autoSplit.mutateAsync({ confirm: confirmed, ratios: toRatios(percents), includeUnlabeled });
      void message.success(t('autoSplit.done', result));
      setConfirmed(false);
      onClose();
    } catch (e) {
      if (!isApiError(e) || !e.handled) setError(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <Modal
      open={open}
      title={t('autoSplit.title')}
      okText={t('autoSplit.run')}
      cancelText={t('autoSplit.cancel')}
      onOk={() => void submit()}
      onCancel={onClose}
      okButtonProps={{ disabled: !confirmed || problem !== null, loading: autoSplit.isPending, 'data-testid': 'auto-split-run' }}
      data-testid="auto-split-dialog"
    >
      <Form layout="vertical">
        <Space wrap>
          {SHARES.map((share) => (
            <Form.Item key={share} label={t(`splits.${share}`)} style={{ marginBottom: 8 }}>
              <InputNumber
                min={0}
                max={100}
                step={5}
                suffix="%"
                value={percents[share]}
                onChange={(v) => setPercents((p) => ({ ...p, [share]: v ?? 0 }))}
                data-testid={`auto-split-${share}`}
              />
            </Form.Item>
          ))}
        </Space>
        {problem && <Alert type="warning" showIcon title={t(`autoSplit.problems.${problem}`)} data-testid="auto-split-problem" style={{ marginBottom: 12 }} />}
        <Form.Item style={{ marginBottom: 8 }}>
          <Checkbox checked={includeUnlabeled} onChange={(e) => setIncludeUnlabeled(e.target.checked)} data-testid="auto-split-unlabeled">
            {t('autoSplit.includeUnlabeled')}
          </Checkbox>
        </Form.Item>
        <Form.Item style={{ marginBottom: 8 }}>
          <Checkbox checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} data-testid="auto-split-confirm">
            {t('autoSplit.confirm')}
          </Checkbox>
        </Form.Item>
        {error && <Alert type="error" showIcon title={error} data-testid="auto-split-error" />}
      </Form>
    </Modal>
  );
}
