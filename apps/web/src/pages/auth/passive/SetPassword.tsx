import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useSession } from '@/stores/session';
import { AuthCard } from '../shared/AuthCard';
import { authApi } from '../shared/authApi';
import { NewPasswordForm } from '../shared/NewPasswordForm';
import { useNotify } from '../shared/useNotify';
import { useQueryParam } from '../shared/useQueryParam';
import { homeFor } from '../shared/useSignedIn';

/**
 * /set-password: an account created for someone (by an administrator, or through single sign-on) gets its
 * first password. With ?token= from a mail it uses the one-time token (POST /api/password/reset, ResetBody);
 * signed in without a password it uses POST /api/password/set, which contracts define for that case.
 */
export default function SetPassword() {
  const { t } = useTranslation('auth');
  const { message } = useNotify();
  const navigate = useNavigate();
  const token = useQueryParam('token');
  const user = useSession((s) => s.user);
  const signedIn = useSession((s) => !!s.token);

  const done = (to: string) => () => {
    void message.success(t('password.set'));
    navigate(to, { replace: true });
  };

  let body;
  if (token) {
    body = <NewPasswordForm submit={(v) => authApi.reset({ ...v, token })} onDone={done('/signin')} testPrefix="set-password" />;
  } else if (signedIn) {
    const home = homeFor(user?.role ?? '');
    body = (
      <>
        <NewPasswordForm submit={authApi.setPassword} onDone={done(home)} testPrefix="set-password" />
        {/* Single sign-on keeps working without a password, so choosing one can wait. */}
        <div style={{ marginTop: '1rem', textAlign: 'center' }}>
          <Link to={home} replace data-testid="set-password-later">
            {t('passive.later')}
          </Link>
        </div>
      </>
    );
  } else {
    body = (
      <Result
        status="warning"
        title={t('passive.needLink')}
        extra={
          <Link to="/signin">
            <Button type="primary" data-testid="set-password-signin">
              {t('common.backToSignIn')}
            </Button>
          </Link>
        }
      />
    );
  }
  return (
    <AuthCard title={t('passive.setPasswordTitle')} subtitle={t('passive.setPasswordIntro')} testId="set-password-page">
      {body}
    </AuthCard>
  );
}
