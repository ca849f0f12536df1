import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { useQueryParam } from '../shared/useQueryParam';
import { PasswordSignInForm } from './PasswordSignInForm';

/** /signinEmailPassword: the password step; the email from the first step arrives as ?email=. */
export default function SigninEmailPassword() {
  const { t } = useTranslation('auth');
  const email = useQueryParam('email');
  return (
    <AuthCard title={t('signin.title')} subtitle={t('signin.passwordStep')} testId="signin-password-step">
      <PasswordSignInForm channel="email" initialUsername={email} />
      <div style={{ marginTop: '1rem' }}>
        <Link to={`/signinVerify?email=${encodeURIComponent(email)}`} data-testid="link-use-code">
          {t('signin.useCodeInstead')}
        </Link>
      </div>
      <AuthLinks show={['signup', 'forgot']} />
    </AuthCard>
  );
}
