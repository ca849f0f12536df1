import { GoogleOutlined, KeyOutlined, MailOutlined, MobileOutlined } from '@ant-design/icons';
import { Alert, Divider } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { AuthPaths } from '@loupe/contracts';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { ChoiceList, type Choice } from '../shared/ChoiceList';
import { authApi } from '../shared/authApi';
import { errorParamText } from '../shared/errorParam';
import { useQueryParam } from '../shared/useQueryParam';

export const publicConfigKey = ['public-config'] as const;

/** /signin and /signin-home: pick a way to sign in. Google appears only when the server has OIDC configured. */
export default function SignInHome() {
  const { t } = useTranslation('auth');
  // Single sign-on failures come back as /signin?error=<code>.
  const error = errorParamText(useQueryParam('error'), t);
  const config = useQuery({ queryKey: publicConfigKey, queryFn: authApi.config, staleTime: 5 * 60_000 });

  const choices: Choice[] = [
    { key: 'password', icon: <KeyOutlined />, label: t('signin.withPassword'), to: '/signinEmail', testId: 'signin-with-password' },
    { key: 'code', icon: <MailOutlined />, label: t('signin.withCode'), to: '/signinVerify', testId: 'signin-with-code' },
    { key: 'phone', icon: <MobileOutlined />, label: t('signin.withPhone'), to: '/signinPhone', testId: 'signin-with-phone' },
  ];
  if (config.data?.oidc) {
    choices.push({
      key: 'google',
      icon: <GoogleOutlined />,
      label: t('signin.withGoogle'),
      // A full navigation, not a route change: the server answers with a redirect to the identity provider.
      to: () => window.location.assign(AuthPaths.oidcStart),
      testId: 'signin-with-google',
    });
  }

  return (
    <AuthCard title={t('signin.title')} subtitle={t('signin.subtitle')} testId="signin-home">
      {error && <Alert type="error" showIcon title={error} data-testid="signin-error" style={{ marginBottom: '1rem' }} />}
      <ChoiceList choices={choices} />
      <Divider />
      <AuthLinks show={['signup', 'forgot']} />
    </AuthCard>
  );
}
