import { useEffect } from 'react';
import { Button, Result, Spin } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { authApi } from '../shared/authApi';
import { errorText } from '../shared/FormError';
import { useQueryParam } from '../shared/useQueryParam';

/**
 * /registered/check?token=…: the activation link from the mail. A query rather than an effect+mutation, so
 * React's double-mounted effects in development cannot spend the one-time token twice.
 */
export default function RegisteredCheck() {
  const { t } = useTranslation('auth');
  const token = useQueryParam('token');
  const navigate = useNavigate();
  const activation = useQuery({
    queryKey: ['activate', token],
    queryFn: () => authApi.activate(token),
    enabled: !!token,
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });

  useEffect(() => {
    if (activation.isSuccess) navigate('/registered/comfirm', { replace: true });
  }, [activation.isSuccess, navigate]);

  if (token && !activation.isError) {
    return (
      <AuthCard title={t('activate.title')} testId="registered-check">
        <Spin tip={t('activate.checking')}>
          <div style={{ height: '4rem' }} />
        </Spin>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('activate.title')} testId="registered-check">
      <Result
        status="error"
        title={t('activate.failed')}
        subTitle={activation.error ? errorText(activation.error) : t('activate.noToken')}
        extra={
          <Link to="/signup">
            <Button type="primary" data-testid="activate-register-again">
              {t('activate.registerAgain')}
            </Button>
          </Link>
        }
      />
    </AuthCard>
  );
}
