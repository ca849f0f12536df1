import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { SignupEmailForm } from './SignupEmailForm';

/** /signupEmail: registration with an email address. */
export default function SignupEmail() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signup.title')} subtitle={t('signup.emailIntro')} testId="signup-email-page">
      <SignupEmailForm />
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
