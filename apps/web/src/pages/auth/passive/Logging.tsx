import { useEffect } from 'react';
import { Button, Result, Spin } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { useSession } from '@/stores/session';
import { AuthCard } from '../shared/AuthCard';
import { authApi } from '../shared/authApi';
import { errorParamText } from '../shared/errorParam';
import { errorText } from '../shared/FormError';
import { useQueryParam } from '../shared/useQueryParam';
import { applyAccountLanguage, homeFor } from '../shared/useSignedIn';

/**
 * /logging?code=…&error=…: where single sign-on lands. The URL carries a one-time code, never the session
 * token (URLs end up in history and logs): it is exchanged once by POST for the token, which is stored
 * before the user-info call because that call and every later one carry it; a failure throws it away again.
 * One query keyed by the code, so React's double-mounted effects in development cannot spend the code twice.
 */
export default function Logging() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const code = useQueryParam('code');
  const error = errorParamText(useQueryParam('error'), t);
  const setUserInfo = useSession((s) => s.setUserInfo);
  const clear = useSession((s) => s.clear);

  const info = useQuery({
    queryKey: ['oidc-landing', code],
    queryFn: async () => {
      const { token } = await authApi.oidcExchange(code);
      useSession.setState({ token });
      return authApi.userInfo(token);
    },
    enabled: !!code && !error,
    retry: false,
    staleTime: Infinity,
  });

  useEffect(() => {
    if (info.data) {
      setUserInfo(info.data);
      applyAccountLanguage(info.data.language);
      // An account made by single sign-on has no company yet: registration is finished before work starts.
      navigate(info.data.companyName ? homeFor(info.data.role) : '/finish-register-info', { replace: true });
    } else if (info.isError) {
      clear();
    }
  }, [info.data, info.isError, setUserInfo, clear, navigate]);

  const failed = error || info.isError || !code;
  return (
    <AuthCard title={t('logging.title')} testId="logging">
      {failed ? (
        <Result
          status="error"
          title={t('logging.failed')}
          subTitle={error || (info.error ? errorText(info.error) : t('logging.noToken'))}
          extra={
            <Link to="/signin">
              <Button type="primary" data-testid="logging-back">
                {t('common.backToSignIn')}
              </Button>
            </Link>
          }
        />
      ) : (
        <Spin tip={t('logging.wait')}>
          <div style={{ height: '4rem' }} />
        </Spin>
      )}
    </AuthCard>
  );
}
