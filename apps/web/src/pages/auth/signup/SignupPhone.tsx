import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { PhoneCodeForm } from '../shared/PhoneCodeForm';

/** /signupPhone: registration by phone starts with a code; the server says phone is not supported yet. */
export default function SignupPhone() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signup.title')} subtitle={t('signup.phoneIntro')} testId="signup-phone-page">
      <PhoneCodeForm testPrefix="signup" />
      <AuthLinks show={['signin', 'signup']} />
    </AuthCard>
  );
}
