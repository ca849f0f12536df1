import { UserAddOutlined } from '@ant-design/icons';
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { useQueryParam } from '../shared/useQueryParam';

/** /PassiveRegister?token=…&email=…: someone created an account for this person; next step is a password. */
export default function PassiveRegister() {
  const { t } = useTranslation('auth');
  const token = useQueryParam('token');
  const email = useQueryParam('email');
  return (
    <AuthCard title={t('passive.title')} testId="passive-register">
      <Result
        icon={<UserAddOutlined />}
        title={email ? t('passive.createdFor', { email }) : t('passive.created')}
        subTitle={token ? t('passive.choosePassword') : t('passive.needLink')}
        extra={
          token ? (
            <Link to={`/set-password?token=${encodeURIComponent(token)}`}>
              <Button type="primary" data-testid="passive-set-password">
                {t('passive.setPasswordTitle')}
              </Button>
            </Link>
          ) : (
            <Link to="/signin">
              <Button data-testid="passive-signin">{t('common.backToSignIn')}</Button>
            </Link>
          )
        }
      />
    </AuthCard>
  );
}
