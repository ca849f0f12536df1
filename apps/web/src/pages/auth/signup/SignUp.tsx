import { MailOutlined, MobileOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { ChoiceList } from '../shared/ChoiceList';

/** /signup: choose how to register. */
export default function SignUp() {
  const { t } = useTranslation('auth');
  return (
    <AuthCard title={t('signup.title')} subtitle={t('signup.choose')} testId="signup-home">
      <ChoiceList
        choices={[
          { key: 'email', icon: <MailOutlined />, label: t('signup.withEmail'), to: '/signupEmail', testId: 'signup-with-email' },
          { key: 'phone', icon: <MobileOutlined />, label: t('signup.withPhone'), to: '/signupPhone', testId: 'signup-with-phone' },
        ]}
      />
      <AuthLinks show={['signin']} />
    </AuthCard>
  );
}
