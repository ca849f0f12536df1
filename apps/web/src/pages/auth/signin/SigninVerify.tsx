import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { useQueryParam } from '../shared/useQueryParam';
import { CodeSignInForm } from './CodeSignInForm';

/** /signinVerify: sign in with a code sent by email. */
export default function SigninVerify() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signin.title')} subtitle={t('signin.codeStep')} testId="signin-verify">
      <CodeSignInForm channel="email" initial={useQueryParam('email')} />
      <AuthLinks show={['signin', 'signup']} />
    </AuthCard>
  );
}
