import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { useQueryParam } from '../shared/useQueryParam';
import { CodeSignInForm } from './CodeSignInForm';

/** /send-verify-phone: sign in with a code sent by SMS (the server says this is not supported yet). */
export default function SendVerifyPhone() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signin.titlePhone')} subtitle={t('signin.codeStepPhone')} testId="signin-verify-phone">
      <CodeSignInForm channel="phone" initial={useQueryParam('phone')} />
      <AuthLinks show={['signin', 'signup']} />
    </AuthCard>
  );
}
