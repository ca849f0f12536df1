import { MailOutlined } from '@ant-design/icons';
import { Alert, Result } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router-dom';
import { Limits } from '@loupe/contracts';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { authApi } from '../shared/authApi';
import { CountdownButton } from '../shared/CountdownButton';
import { FormError } from '../shared/FormError';
import { useQueryParam } from '../shared/useQueryParam';

/**
 * /forgetVerify?email=…: the reset link is in the mailbox; it can be sent again after the resend interval.
 * Opened without an address (a bookmark, a typed URL) there is nothing to report on: the user is sent to
 * /forgetEmail to ask for a link, rather than reading "we sent a link to ." (issue 31 item 6).
 */
export default function ForgetVerify() {
  const { t } = useTranslation('auth');
  const email = useQueryParam('email').trim();
  const resend = useMutation({ mutationFn: () => authApi.forgot(email) });
  if (!email) return <Navigate to="/forgetEmail" replace />;
  return (
    <AuthCard title={t('forgot.title')} testId="forgot-verify">
      <Result
        icon={<MailOutlined />}
        title={t('forgot.checkMailbox')}
        subTitle={t('forgot.sentTo', { email, minutes: Limits.resetTtlS / 60 })}
      />
      <FormError error={resend.error} testId="forgot-error" />
      {resend.isSuccess && <Alert type="success" title={t('verify.resent')} data-testid="forgot-resent" style={{ marginBottom: '1rem' }} />}
      <CountdownButton
        block
        initialWait={Limits.codeResendS}
        onSend={() => resend.mutateAsync().then(() => undefined)}
        data-testid="forgot-resend"
      >
        {t('verify.resend')}
      </CountdownButton>
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
