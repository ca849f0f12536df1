import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { PhoneCodeForm } from '../shared/PhoneCodeForm';

/** /forgetPhone: reset by SMS code; the server answers that phone verification is not supported yet. */
export default function ForgetPhone() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('forgot.title')} subtitle={t('forgot.phoneIntro')} testId="forgot-phone-page">
      <PhoneCodeForm testPrefix="forgot" />
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
