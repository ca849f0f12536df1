import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { useQueryParam } from '../shared/useQueryParam';
import { PasswordSignInForm } from './PasswordSignInForm';

/** /signinPhonePassword: phone + password; the server answers that phone sign-in is not supported yet. */
export default function SigninPhonePassword() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signin.titlePhone')} testId="signin-phone-password-step">
      <PasswordSignInForm channel="phone" initialUsername={useQueryParam('phone')} />
      <AuthLinks show={['signin', 'forgot']} />
    </AuthCard>
  );
}
