import { MailOutlined } from '@ant-design/icons';
import { Alert, Result } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Limits } from '@loupe/contracts';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { authApi } from '../shared/authApi';
import { CountdownButton } from '../shared/CountdownButton';
import { FormError } from '../shared/FormError';
import { useQueryParam } from '../shared/useQueryParam';

/** /send-verify?email=…: after registering, the activation mail is on its way; it can be sent again. */
export default function SendVerify() {
  const { t } = useTranslation('auth');
  const email = useQueryParam('email');
  const resend = useMutation({ mutationFn: () => authApi.resendActivation(email) });

  return (
    <AuthCard title={t('verify.title')} testId="send-verify">
      <Result
        icon={<MailOutlined />}
        title={t('verify.sent', { email })}
        subTitle={t('verify.hint', { hours: Limits.activationTtlS / 3600 })}
      />
      <FormError error={resend.error} testId="verify-error" />
      {resend.isSuccess && <Alert type="success" title={t('verify.resent')} data-testid="verify-resent" style={{ marginBottom: '1rem' }} />}
      <CountdownButton
        block
        disabled={!email}
        initialWait={Limits.codeResendS}
        onSend={() => resend.mutateAsync().then(() => undefined)}
        data-testid="verify-resend"
      >
        {t('verify.resend')}
      </CountdownButton>
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
