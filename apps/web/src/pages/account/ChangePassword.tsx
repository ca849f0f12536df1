import { Button, Card, Form, Input } from 'antd';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { ChangePasswordBody } from '@loupe/contracts';
import { authApi } from '@/pages/auth/shared/authApi';
import { FormError } from '@/pages/auth/shared/FormError';
import { NewPasswordFields } from '@/pages/auth/shared/NewPasswordFields';
import { formRules } from '@/pages/auth/shared/rules';
import { useNotify } from '@/pages/auth/shared/useNotify';

/** /changePassword: current password, then the new one twice (POST /api/password/change). */
export default function ChangePassword() {
  const { t } = useTranslation('account');
  const r = formRules(t);
  const { message } = useNotify();
  const [form] = Form.useForm<ChangePasswordBody>();
  const change = useMutation({
    mutationFn: authApi.changePassword,
    onSuccess: () => {
      form.resetFields();
      void message.success(t('changePassword.done'));
    },
  });

  return (
    <Card title={t('changePassword.title')} style={{ maxWidth: '32rem' }} data-testid="change-password-page">
      <Form<ChangePasswordBody> form={form} layout="vertical" requiredMark={false} onFinish={(v) => change.mutate(v)}>
        <FormError error={change.error} testId="change-password-error" />
        <Form.Item
          name="oldPassword"
          label={t('changePassword.old')}
          rules={[r.required(t('changePassword.old')), r.passwordLength]}
        >
          <Input.Password autoComplete="current-password" data-testid="change-password-old" />
        </Form.Item>
        <NewPasswordFields testPrefix="change-password" />
        <Button type="primary" htmlType="submit" loading={change.isPending} data-testid="change-password-submit">
          {t('changePassword.submit')}
        </Button>
      </Form>
    </Card>
  );
}
