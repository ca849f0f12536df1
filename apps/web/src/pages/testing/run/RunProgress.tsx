import { Alert, Button, Progress, Space, Tag, Typography } from 'antd';
import { StopOutlined } from '@ant-design/icons';
import type { TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import type { LiveTest } from '../api/useTestEvents';

interface Props {
  run: TestRunData;
  live: LiveTest;
  stopping: boolean;
  onStop: () => void;
}

/** The phase of an active run: what the stream last said, else what the run record says. */
export function phaseOf(run: TestRunData, live: LiveTest): { phase: string; done: number; total: number } {
  if (live.progress) return live.progress;
  const phase = live.status ?? run.status;
  return { phase, done: run.done, total: run.imageCount };
}

/** An active run: phase, images done out of total, and stop (which makes the test fail, SPEC §4). */
export function RunProgress({ run, live, stopping, onStop }: Props) {
  const { t } = useTranslation(['testing', 'models']);
  const { modal } = useNotify();
  const { phase, done, total } = phaseOf(run, live);
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  const confirmStop = () =>
    modal.confirm({
      title: t('run.stopTitle'),
      content: t('run.stopBody'),
      okText: t('run.stop'),
      cancelText: t('run.keep'),
      okButtonProps: { danger: true, 'data-testid': 'test-stop-confirm' },
      onOk: onStop,
    });
  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="test-active">
      <Space wrap>
        <Tag color="processing" data-testid="test-active-status" data-status={live.status ?? run.status}>
          {t(`models:testStatus.${live.status ?? run.status}`)}
        </Tag>
        <Typography.Text type="secondary">{t('run.version', { version: run.version })}</Typography.Text>
      </Space>
      <div data-testid="test-progress" data-phase={phase} data-done={done} data-total={total}>
        <Typography.Text>{t(`run.phases.${phase}`, { done, total, defaultValue: phase })}</Typography.Text>
        <Progress percent={percent} status="active" />
      </div>
      {live.reconnecting && <Alert type="warning" showIcon title={t('run.reconnecting')} data-testid="test-reconnecting" />}
      <Button danger icon={<StopOutlined />} loading={stopping} onClick={confirmStop} data-testid="test-stop">
        {t('run.stop')}
      </Button>
    </Space>
  );
}
