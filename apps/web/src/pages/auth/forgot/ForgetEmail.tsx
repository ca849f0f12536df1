import { Button, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { AuthCard } from '../shared/AuthCard';
import { AuthLinks } from '../shared/AuthLinks';
import { authApi } from '../shared/authApi';
import { FormError } from '../shared/FormError';
import { formRules } from '../shared/rules';
import { useQueryParam } from '../shared/useQueryParam';

/** /forgetEmail: ask for a reset link (POST /api/password/forgot). */
export default function ForgetEmail() {
  const { t } = useTranslation('auth');
  const r = formRules(t);
  const navigate = useNavigate();
  const forgot = useMutation({
    mutationFn: (email: string) => authApi.forgot(email),
    onSuccess: (_d, email) => navigate(`/forgetVerify?email=${encodeURIComponent(email)}`),
  });
  return (
    <AuthCard title={t('forgot.title')} subtitle={t('forgot.emailIntro')} testId="forgot-email-page">
      <Form
        layout="vertical"
        requiredMark={false}
        initialValues={{ email: useQueryParam('email') }}
        onFinish={(v: { email: string }) => forgot.mutate(v.email.trim())}
      >
        <FormError error={forgot.error} testId="forgot-error" />
        <Form.Item name="email" label={t('fields.email')} rules={[r.required(t('fields.email')), r.email]}>
          <Input autoComplete="email" data-testid="forgot-email" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={forgot.isPending} data-testid="forgot-submit">
          {t('forgot.send')}
        </Button>
      </Form>
      <AuthLinks show={['signin', 'signup']} />
    </AuthCard>
  );
}
