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
import { homeFor } from '../shared/useSignedIn';

/**
 * /logging?token=…&error=…: where single sign-on lands. The token is stored first because the user-info call
 * and every later call carry it; a failed user-info call throws the token away again.
 */
export default function Logging() {
  const { t } = useTranslation('auth');
  const navigate = useNavigate();
  const token = useQueryParam('token');
  const error = errorParamText(useQueryParam('error'), t);
  const setUserInfo = useSession((s) => s.setUserInfo);
  const clear = useSession((s) => s.clear);

  const info = useQuery({
    queryKey: ['oidc-user-info', token],
    queryFn: () => {
      useSession.setState({ token });
      return authApi.userInfo(token);
    },
    enabled: !!token && !error,
    retry: false,
    gcTime: 0,
  });

  useEffect(() => {
    if (info.data) {
      setUserInfo(info.data);
      // An account made by single sign-on has no company yet: registration is finished before work starts.
      navigate(info.data.companyName ? homeFor(info.data.role) : '/finish-register-info', { replace: true });
    } else if (info.isError) {
      clear();
    }
  }, [info.data, info.isError, setUserInfo, clear, navigate]);

  const failed = error || info.isError || !token;
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
