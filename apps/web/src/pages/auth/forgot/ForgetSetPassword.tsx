import { Button, Result, Spin } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { authApi } from '../shared/authApi';
import { errorText } from '../shared/FormError';
import { NewPasswordForm } from '../shared/NewPasswordForm';
import { useNotify } from '../shared/useNotify';
import { useQueryParam } from '../shared/useQueryParam';

/** /forget-set-password?token=…: check the reset link first, so a dead link is said before typing a password. */
export default function ForgetSetPassword() {
  const { t } = useTranslation('auth');
  const { message } = useNotify();
  const navigate = useNavigate();
  const token = useQueryParam('token');
  const check = useQuery({
    queryKey: ['reset-check', token],
    queryFn: () => authApi.resetCheck(token),
    enabled: !!token,
    retry: false,
  });

  let body;
  if (token && check.isPending) {
    body = <Spin />;
  } else if (!token || check.isError) {
    body = (
      <Result
        status="warning"
        title={check.error ? errorText(check.error) : t('forgot.linkInvalid')}
        extra={
          <Link to="/forgetEmail">
            <Button type="primary" data-testid="reset-request-again">
              {t('forgot.requestAgain')}
            </Button>
          </Link>
        }
      />
    );
  } else {
    body = (
      <NewPasswordForm
        submit={(v) => authApi.reset({ ...v, token })}
        testPrefix="reset"
        onDone={() => {
          void message.success(t('password.changed'));
          navigate('/signin', { replace: true });
        }}
      />
    );
  }
  return (
    <AuthCard title={t('forgot.newPasswordTitle')} testId="forgot-set-password">
      {body}
    </AuthCard>
  );
}
