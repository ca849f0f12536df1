import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { App, Button, Modal } from 'antd';
import { Limits } from '@loupe/contracts';
import { setFeedbackPort, useRelogin } from '@/api/feedback';
import { useTranslation } from '@/i18n';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';

/** Gives the HTTP client its UI: Ant Design notices with a button, router navigation, the relogin dialog. */
export function FeedbackBridge() {
  const navigate = useNavigate();
  const { notification } = App.useApp();
  const { t } = useTranslation();

  useEffect(() => {
    setFeedbackPort({
      navigate: (to) => navigate(to),
      notice: ({ message, actionLabel, to }) => {
        const key = `notice-${Date.now()}`;
        notification.warning({
          key,
          title: message,
          duration: Limits.warningDurationMs / 1000 + 2,
          actions:
            actionLabel && to ? (
              <Button
                type="primary"
                size="small"
                data-testid="notice-action"
                onClick={() => {
                  notification.destroy(key);
                  navigate(to);
                }}
              >
                {t(actionLabel)}
              </Button>
            ) : undefined,
        });
      },
    });
  }, [navigate, notification, t]);

  return <ReloginDialog />;
}

function ReloginDialog() {
  const { open, message, close } = useRelogin();
  const clear = useSession((s) => s.clear);
  const navigate = useNavigate();
  const { t } = useTranslation('layout');

  const confirm = () => {
    close();
    clear();
    useProject.getState().setProject(null);
    navigate('/signin', { replace: true });
  };

  return (
    <Modal
      open={open}
      title={t('relogin.title')}
      closable={false}
      mask={{ closable: false }}
      keyboard={false}
      cancelButtonProps={{ style: { display: 'none' } }}
      okText={t('relogin.confirm')}
      okButtonProps={{ 'data-testid': 'relogin-confirm' } as Record<string, string>}
      onOk={confirm}
    >
      <div data-testid="relogin-modal">{message}</div>
    </Modal>
  );
}
