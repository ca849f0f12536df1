import { MailOutlined, MobileOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { ChoiceList } from '../shared/ChoiceList';

/** /forget and /forgetjudge: reset the password by email or by phone. */
export default function ForgetJudge() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('forgot.title')} subtitle={t('forgot.choose')} testId="forgot-home">
      <ChoiceList
        choices={[
          { key: 'email', icon: <MailOutlined />, label: t('forgot.byEmail'), to: '/forgetEmail', testId: 'forgot-by-email' },
          { key: 'phone', icon: <MobileOutlined />, label: t('forgot.byPhone'), to: '/forgetPhone', testId: 'forgot-by-phone' },
        ]}
      />
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
